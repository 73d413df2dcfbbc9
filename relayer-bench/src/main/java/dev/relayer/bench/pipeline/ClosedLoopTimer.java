package dev.relayer.bench.pipeline;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Times a task run back to back by a number of threads (a closed loop): each thread calls it
 * repeatedly for the warm-up and the window; calls that start inside the window are timed.
 */
public final class ClosedLoopTimer {

  private ClosedLoopTimer() {}

  /** A task that may throw; a throw ends the measurement with that exception. */
  @FunctionalInterface
  public interface Task {
    void run() throws Exception;
  }

  /**
   * The durations of the calls timed inside the window, and their rate.
   *
   * @param micros call durations, µs
   * @param callsPerSecond timed calls per second of window
   */
  public record Timing(Histogram micros, double callsPerSecond) {

    /** This timing and {@code other} together, as if one window had held both. */
    public Timing plus(Timing other) {
      Histogram sum = micros.copy();
      sum.add(other.micros);
      double seconds =
          micros.getTotalCount() / nonZero(callsPerSecond)
              + other.micros.getTotalCount() / nonZero(other.callsPerSecond);
      return new Timing(sum, seconds == 0 ? 0 : sum.getTotalCount() / seconds);
    }

    private static double nonZero(double rate) {
      return rate == 0 ? Double.POSITIVE_INFINITY : rate;
    }

    /** The duration at {@code percentile}, in ms. */
    public double millisAt(double percentile) {
      return micros.getTotalCount() == 0
          ? Double.NaN
          : micros.getValueAtPercentile(percentile) / 1000.0;
    }
  }

  /** Runs {@code task} on {@code threads} threads for {@code warmup} + {@code window}. */
  public static Timing run(int threads, Duration warmup, Duration window, Task task)
      throws Exception {
    Recorder recorder = new Recorder(3);
    AtomicBoolean timing = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger names = new AtomicInteger();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "bench-caller-" + names.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    List<Future<?>> callers = new ArrayList<>();
    try {
      for (int i = 0; i < threads; i++) {
        callers.add(
            pool.submit(
                () -> {
                  while (!stop.get()) {
                    boolean timed = timing.get();
                    long start = System.nanoTime();
                    task.run();
                    if (timed && !stop.get()) {
                      recorder.recordValue((System.nanoTime() - start) / 1000);
                    }
                  }
                  return null;
                }));
      }
      TimeUnit.NANOSECONDS.sleep(warmup.toNanos());
      recorder.reset();
      timing.set(true);
      long t0 = System.nanoTime();
      TimeUnit.NANOSECONDS.sleep(window.toNanos());
      stop.set(true);
      double seconds = (System.nanoTime() - t0) / 1e9;
      Histogram histogram = recorder.getIntervalHistogram();
      for (Future<?> caller : callers) {
        caller.get();
      }
      return new Timing(histogram, histogram.getTotalCount() / seconds);
    } finally {
      stop.set(true);
      pool.shutdownNow();
      pool.awaitTermination(1, TimeUnit.MINUTES);
    }
  }
}
