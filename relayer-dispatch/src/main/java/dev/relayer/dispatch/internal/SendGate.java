package dev.relayer.dispatch.internal;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Makes "sent alone" true of the whole process: every transport call holds the gate {@linkplain
 * #shared() shared}, and a suspect row's claim, send and completion hold it {@linkplain #alone()
 * alone}, which waits for the calls in flight to end and keeps new ones waiting. A crash while a
 * row is sent alone is therefore that row's doing — or at least no other send's — and only such a
 * crash counts towards its attempts ({@code ClaimedMessage#SENT_ALONE}).
 *
 * <p>One gate per process, not per dispatcher: a message that kills the JVM takes every store's
 * sends down with it. A call that outlives its send timeout (a transport that ignores the
 * interrupt) is no longer waited for: its caller has let the gate go.
 *
 * <p>The happy path takes and releases a read lock once per native batch (its cost on the
 * burn-downs is in docs/benchmarks.md); a suspect row holds every other send of the process up for
 * its own send (at most the send timeout) and two short transactions.
 */
public final class SendGate {

  /** The process's gate. */
  public static final SendGate PROCESS = new SendGate();

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

  private SendGate() {}

  /** A hold of the gate, released by {@link #close()}. */
  public interface Hold extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Holds the gate for one transport call, alongside other calls; waits while a row is being sent
   * alone (the thread that sends it alone may take it too).
   */
  public Hold shared() {
    ReentrantReadWriteLock.ReadLock read = lock.readLock();
    read.lock();
    return read::unlock;
  }

  /**
   * Holds the gate alone: waits until no other thread's transport call is in flight, and keeps
   * every other thread's calls waiting until {@link Hold#close()}. Throws {@link
   * InterruptedException} when the waiting thread is interrupted (shutdown).
   */
  public Hold alone() throws InterruptedException {
    ReentrantReadWriteLock.WriteLock write = lock.writeLock();
    write.lockInterruptibly();
    return write::unlock;
  }
}
