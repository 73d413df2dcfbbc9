package dev.relayer.bench.pipeline;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;

/**
 * Where a system under test reports commits and deliveries. Messages carry a sequence number:
 * {@code seq >= 0} inside the current {@linkplain #startWindow window} is timed (commit and first
 * delivery, {@link System#nanoTime()}); a negative {@code seq} (pre-loaded rows, saturation load)
 * is only counted. The sink of every system calls {@link #delivered}; the producer calls {@link
 * #committed} as soon as it knows its transaction committed.
 */
public final class DeliveryProbe {

  private final AtomicLong committed = new AtomicLong();
  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private volatile Window window = new Window(0);

  /** Starts timing sequence numbers {@code 0 .. capacity-1}; earlier timings are forgotten. */
  public void startWindow(int capacity) {
    window = new Window(capacity);
  }

  /** A producer's transaction carrying {@code seq} committed. */
  public void committed(long seq) {
    committed.incrementAndGet();
    Window w = window;
    if (seq >= 0 && seq < w.commit.length()) {
      w.commit.compareAndSet((int) seq, 0, System.nanoTime());
    }
  }

  /** The sink received message {@code seq}; repeated deliveries of a timed seq count once. */
  public void delivered(long seq) {
    Window w = window;
    if (seq >= 0 && seq < w.send.length()) {
      if (!w.send.compareAndSet((int) seq, 0, System.nanoTime())) {
        duplicates.incrementAndGet();
        return;
      }
    }
    delivered.incrementAndGet();
  }

  /** Commits reported so far. */
  public long committedCount() {
    return committed.get();
  }

  /** Distinct deliveries so far (every delivery of an untimed seq counts). */
  public long deliveredCount() {
    return delivered.get();
  }

  /** Repeated deliveries of timed messages. */
  public long duplicateCount() {
    return duplicates.get();
  }

  /**
   * Waits until {@link #deliveredCount()} reaches {@code target} or {@code timeoutNanos} pass;
   * returns {@link System#nanoTime()} when the target was seen, or -1 on timeout.
   */
  public long awaitDelivered(long target, long timeoutNanos) throws InterruptedException {
    return awaitDelivered(target, timeoutNanos, () -> false);
  }

  /**
   * {@link #awaitDelivered(long, long)} that also stops, returning the {@link System#nanoTime()} it
   * stopped at, as soon as {@code stopEarly} is true.
   */
  public long awaitDelivered(long target, long timeoutNanos, BooleanSupplier stopEarly)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    while (true) {
      long now = System.nanoTime();
      if (delivered.get() >= target || stopEarly.getAsBoolean()) {
        return now;
      }
      if (now - deadline >= 0) {
        return -1;
      }
      TimeUnit.MICROSECONDS.sleep(500);
    }
  }

  /** Whether every seq in {@code [from, to)} was delivered. */
  public boolean allDelivered(long from, long to) {
    Window w = window;
    for (long seq = from; seq < to; seq++) {
      if (w.send.get((int) seq) == 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Commit-to-first-delivery latencies in µs of the seqs in {@code [from, to)} that were both
   * committed and delivered.
   */
  public Latencies latencies(long from, long to) {
    Window w = window;
    Histogram histogram = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    long undelivered = 0;
    long early = 0;
    for (long seq = from; seq < to; seq++) {
      long commit = w.commit.get((int) seq);
      long send = w.send.get((int) seq);
      if (commit == 0) {
        continue;
      }
      if (send == 0) {
        undelivered++;
        continue;
      }
      long micros = (send - commit) / 1000;
      if (micros < 0) {
        early++;
        micros = 0;
      }
      histogram.recordValue(Math.min(micros, histogram.getHighestTrackableValue()));
    }
    return new Latencies(histogram, undelivered, early);
  }

  /**
   * Latencies of one window.
   *
   * @param micros commit-to-send latencies, µs
   * @param undelivered committed messages not delivered when the latencies were read
   * @param deliveredBeforeCommitSeen messages the sink saw before the producer saw its commit
   *     (counted as 0 µs)
   */
  public record Latencies(Histogram micros, long undelivered, long deliveredBeforeCommitSeen) {

    /** The latency at {@code percentile} in ms, or NaN without samples. */
    public double millisAt(double percentile) {
      return micros.getTotalCount() == 0
          ? Double.NaN
          : micros.getValueAtPercentile(percentile) / 1000.0;
    }
  }

  private static final class Window {
    final AtomicLongArray commit;
    final AtomicLongArray send;

    Window(int capacity) {
      commit = new AtomicLongArray(capacity);
      send = new AtomicLongArray(capacity);
    }
  }
}
