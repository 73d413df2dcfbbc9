package dev.relayer.dispatch.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Names threads {@code relayer-<store>-<component>-N}; daemon, so a forgotten close never hangs a
 * JVM. It keeps the threads it made that are still alive, so that a close can wait for them to end
 * ({@link #awaitExit}): an executor's {@code awaitTermination} returns once its last task is done,
 * before its last worker thread has finished exiting.
 */
public final class NamedThreads implements ThreadFactory {

  private final String prefix;
  private final AtomicInteger next = new AtomicInteger(1);
  private final List<Thread> made = new CopyOnWriteArrayList<>();

  public NamedThreads(String store, String component) {
    this.prefix = "relayer-" + store + "-" + component + "-";
  }

  @Override
  public Thread newThread(Runnable task) {
    Thread thread = new Thread(task, prefix + next.getAndIncrement());
    thread.setDaemon(true);
    // Only threads that ran and ended: one made but not yet started is not alive either.
    made.removeIf(t -> t.getState() == Thread.State.TERMINATED);
    made.add(thread);
    return thread;
  }

  /**
   * Waits up to {@code timeout} for every thread this factory made (but the calling one) to end;
   * whether they all have.
   */
  public boolean awaitExit(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread thread : made) {
      long left = deadline - System.nanoTime();
      if (thread == Thread.currentThread() || left <= 0) {
        continue;
      }
      TimeUnit.NANOSECONDS.timedJoin(thread, left);
    }
    return made.stream().allMatch(t -> t == Thread.currentThread() || !t.isAlive());
  }
}
