package dev.relayer.bench.pipeline;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.ScenarioDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * Steady state: producers enqueue one message per transaction while the system delivers.
 *
 * <ol>
 *   <li><b>Capacity</b>: {@code --producers} threads produce as fast as they can for {@code
 *       --warmup} + {@code --seconds}; the capacity is the lower of the commit rate and the
 *       delivery rate inside the window (the highest rate at which the backlog does not grow). Then
 *       the backlog is left to drain.
 *   <li><b>Levels</b>: the same producers at a fixed total rate of 25, 50 and 75% of that capacity
 *       (each thread on its own schedule; a thread that falls behind catches up without pause), for
 *       {@code --warmup} + {@code --seconds}; commit-to-send latency of every message committed
 *       inside the window, the achieved rate, and the backlog (committed, not yet delivered) when
 *       the window closes.
 * </ol>
 *
 * Records {@code <key>.capacity.msgs} and, per level {@code f}, {@code <key>.at<f>.rate}, {@code
 * .p50}, {@code .p99} and {@code .backlog}. With {@link PairedRuns} set up, each capacity window,
 * load level and run of buckets starts together with the paired process's same measurement.
 */
public final class SteadyStateDriver {

  /** How steady state is measured, for the report. */
  public static final String METHOD =
      "**Steady state**: `--producers` threads each commit one message per transaction. First"
          + " they run flat out for `--warmup` + `--seconds`; the *capacity* is the lower of the"
          + " commit rate and the delivery rate inside the window (above it the backlog grows)."
          + " After the backlog drains, the producers run at a fixed total rate of 25, 50 and"
          + " 75% of the capacity (each thread on its own schedule), and every message committed"
          + " inside the window is timed from the producer seeing its commit to the sink"
          + " receiving it (first delivery). *Backlog* is committed minus delivered when the"
          + " window closes.";

  /** Load levels, in percent of the measured capacity. */
  public static final List<Integer> LEVELS = List.of(25, 50, 75);

  private final ScenarioContext context;
  private final ScenarioDatabase database;
  private final String key;
  private final String label;
  private final ProducingSystem system;
  private final DeliveryProbe probe;
  private final BenchOptions options;

  private SteadyStateDriver(
      ScenarioContext context,
      ScenarioDatabase database,
      String key,
      String label,
      ProducingSystem system,
      DeliveryProbe probe) {
    this.context = context;
    this.database = database;
    this.key = key;
    this.label = label;
    this.system = system;
    this.probe = probe;
    this.options = context.options();
  }

  /** A driver that records {@code system}'s figures under {@code key}, labelled {@code label}. */
  public static SteadyStateDriver of(
      ScenarioContext context,
      String key,
      String label,
      ProducingSystem system,
      DeliveryProbe probe) {
    return of(context, context.database(), key, label, system, probe);
  }

  /**
   * A driver as {@link #of(ScenarioContext, String, String, ProducingSystem, DeliveryProbe)} for a
   * system whose pools are on {@code database} rather than the run's own, whose commits it counts.
   */
  public static SteadyStateDriver of(
      ScenarioContext context,
      ScenarioDatabase database,
      String key,
      String label,
      ProducingSystem system,
      DeliveryProbe probe) {
    return new SteadyStateDriver(context, database, key, label, system, probe);
  }

  /**
   * Measures only the capacity, without the load levels, and records it as {@link #run} does,
   * except the commits per message: the system may commit in auto-commit, which the pool's commit
   * count does not see.
   */
  public void runCapacity() throws Exception {
    recordCapacity(false);
  }

  /** Measures the capacity, then the latencies at {@link #LEVELS}, and records the figures. */
  public void run() throws Exception {
    double capacity = recordCapacity(true);
    if (!(capacity > 0)) {
      context.note(label + ": nothing was delivered at saturation, so no load levels were run");
      return;
    }
    runLevels(capacity);
  }

  /**
   * Runs the load levels at {@link #LEVELS} percent of {@code capacity} and records their figures
   * as {@link #run} does. Given another system's capacity, it compares two systems at the same
   * offered rates.
   */
  public void runLevels(double capacity) throws Exception {
    for (int level : LEVELS) {
      runLevel(level, capacity);
    }
  }

  /**
   * Runs one load level, {@code percent} of {@code capacity}, and records its figures as {@link
   * #run} does; two drivers may run a level each at the same time.
   */
  public void runLevel(int percent, double capacity) throws Exception {
    level(percent, capacity * percent / 100.0, true);
  }

  /** Runs one load level as {@link #runLevel} does, and records nothing. */
  public void runUncounted(int percent, double capacity) throws Exception {
    level(percent, capacity * percent / 100.0, false);
  }

  private double recordCapacity(boolean countCommits) throws Exception {
    double capacity = capacity(countCommits);
    context.record(
        key + ".capacity.msgs", label + ": capacity (saturated producers)", "msgs/s", capacity);
    return capacity;
  }

  private double capacity(boolean countCommits) throws Exception {
    PairedRuns.awaitPeerIfPaired();
    AtomicBoolean stop = new AtomicBoolean();
    List<Future<?>> producers = new ArrayList<>();
    ExecutorService pool = producerPool();
    try {
      for (int i = 0; i < options.producers(); i++) {
        producers.add(
            pool.submit(
                () -> {
                  while (!stop.get()) {
                    system.produce(-1);
                  }
                  return null;
                }));
      }
      sleep(options.warmup().toNanos());
      long committed0 = probe.committedCount();
      long delivered0 = probe.deliveredCount();
      long commits0 = database.commits();
      long t0 = System.nanoTime();
      sleep(options.window().toNanos());
      long committed1 = probe.committedCount();
      long delivered1 = probe.deliveredCount();
      long commits1 = database.commits();
      double seconds = (System.nanoTime() - t0) / 1e9;
      stop.set(true);
      for (Future<?> producer : producers) {
        producer.get();
      }
      double committedRate = (committed1 - committed0) / seconds;
      double deliveredRate = (delivered1 - delivered0) / seconds;
      context.record(
          key + ".capacity.committed",
          label + ": messages committed at saturation",
          "msgs/s",
          committedRate);
      if (countCommits) {
        context.record(
            key + ".capacity.commits",
            label + ": database commits per message at saturation",
            "commits",
            committed1 == committed0
                ? Double.NaN
                : (double) (commits1 - commits0) / (committed1 - committed0));
      }
      long total = probe.committedCount();
      if (probe.awaitDelivered(total, options.timeout().toNanos()) < 0) {
        context.note(
            label
                + ": the saturation backlog had not drained within --timeout; "
                + (total - probe.deliveredCount())
                + " messages were still waiting when the levels started");
      }
      return Math.min(committedRate, deliveredRate);
    } finally {
      stop.set(true);
      pool.shutdownNow();
      pool.awaitTermination(1, TimeUnit.MINUTES);
    }
  }

  private void level(int percent, double rate, boolean record) throws Exception {
    long totalNanos = options.warmup().toNanos() + options.window().toNanos();
    PairedRuns.awaitPeerIfPaired();
    try (FixedRate producers = new FixedRate(rate, totalNanos)) {
      sleep(producers.start + options.warmup().toNanos() - System.nanoTime());
      long from = producers.produced();
      long commits0 = database.commits();
      long t0 = System.nanoTime();
      sleep(options.window().toNanos());
      long to = producers.produced();
      long commits = database.commits() - commits0;
      double seconds = (System.nanoTime() - t0) / 1e9;
      long backlog = probe.committedCount() - probe.deliveredCount();
      producers.stop();
      long drainNanos = Math.max(TimeUnit.SECONDS.toNanos(10), options.window().toNanos());
      boolean drained = await(() -> probe.allDelivered(from, to), drainNanos);
      DeliveryProbe.Latencies latencies = probe.latencies(from, to);
      if (!record) {
        return;
      }
      String at = label + " at " + percent + "%";
      context.record(
          key + ".at" + percent + ".rate", at + ": rate achieved", "msgs/s", (to - from) / seconds);
      context.record(
          key + ".at" + percent + ".p50",
          at + ": commit-to-send p50",
          "ms",
          latencies.millisAt(50));
      context.record(
          key + ".at" + percent + ".p99",
          at + ": commit-to-send p99",
          "ms",
          latencies.millisAt(99));
      context.record(
          key + ".at" + percent + ".commits",
          at + ": database commits per message",
          "commits",
          to == from ? Double.NaN : (double) commits / (to - from));
      context.record(
          key + ".at" + percent + ".backlog",
          at + ": backlog when the window closed",
          "msgs",
          (double) backlog);
      if (!drained) {
        context.note(
            at
                + ": "
                + latencies.undelivered()
                + " messages of the window were not delivered within "
                + TimeUnit.NANOSECONDS.toSeconds(drainNanos)
                + " s after it; the percentiles leave them out");
      }
      noteAnomalies(at, latencies, producers);
    }
  }

  private void noteAnomalies(String at, DeliveryProbe.Latencies latencies, FixedRate producers) {
    if (latencies.deliveredBeforeCommitSeen() > 0) {
      context.note(
          at
              + ": "
              + latencies.deliveredBeforeCommitSeen()
              + " messages reached the sink before the producer saw the commit (counted as 0 ms)");
    }
    if (producers.overflowed()) {
      context.note(at + ": the producers outran the timing table; the window was cut");
    }
  }

  /**
   * One bucket of {@link #runBuckets}.
   *
   * @param index 0-based
   * @param seconds how long the bucket lasted
   * @param rate messages committed per second in the bucket
   * @param latencies commit-to-send latencies of the messages committed in the bucket
   */
  public record Bucket(int index, double seconds, double rate, DeliveryProbe.Latencies latencies) {}

  /**
   * Measures the capacity (recorded as {@link #run} does) and returns it, without the load levels.
   */
  public double measureCapacity() throws Exception {
    return recordCapacity(true);
  }

  /**
   * Producers at a fixed total {@code rate} for {@code --warmup} and then {@code length}, cut into
   * buckets of {@code bucket}; {@code atBoundary} runs on the calling thread at the start of the
   * first bucket and at the end of every bucket (with the bucket's index; -1 for the start). After
   * the last bucket the producers stop and the driver waits (at most {@code --timeout}) for the
   * messages of the buckets to be delivered, then returns each bucket's rate and latencies; nothing
   * is recorded.
   */
  public List<Bucket> runBuckets(
      double rate, Duration length, Duration bucket, IntConsumer atBoundary) throws Exception {
    long totalNanos = options.warmup().toNanos() + length.toNanos();
    PairedRuns.awaitPeerIfPaired();
    List<long[]> bounds = new ArrayList<>();
    List<Double> seconds = new ArrayList<>();
    try (FixedRate producers = new FixedRate(rate, totalNanos)) {
      long t = producers.start + options.warmup().toNanos();
      sleep(t - System.nanoTime());
      atBoundary.accept(-1);
      long from = producers.produced();
      long end = t + length.toNanos();
      for (int i = 0; t < end; i++) {
        long next = Math.min(end, t + bucket.toNanos());
        sleep(next - System.nanoTime());
        long to = producers.produced();
        bounds.add(new long[] {from, to});
        seconds.add((System.nanoTime() - t) / 1e9);
        atBoundary.accept(i);
        from = to;
        t = next;
      }
      producers.stop();
      long last = from;
      long first = bounds.isEmpty() ? last : bounds.get(0)[0];
      if (!await(() -> probe.allDelivered(first, last), options.timeout().toNanos())) {
        context.note(
            label
                + ": some messages of the buckets were not delivered within --timeout;"
                + " the percentiles leave them out");
      }
      List<Bucket> buckets = new ArrayList<>();
      for (int i = 0; i < bounds.size(); i++) {
        long[] b = bounds.get(i);
        DeliveryProbe.Latencies latencies = probe.latencies(b[0], b[1]);
        buckets.add(new Bucket(i, seconds.get(i), (b[1] - b[0]) / seconds.get(i), latencies));
      }
      noteAnomalies(label, probe.latencies(first, last), producers);
      return buckets;
    }
  }

  /**
   * {@code --producers} threads committing at a fixed total rate, each on its own schedule (a
   * thread that falls behind catches up without pause), timing sequence numbers from 0 in a fresh
   * probe window sized for {@code totalNanos} at that rate.
   */
  private final class FixedRate implements AutoCloseable {
    final long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
    private final int capacity;
    private final AtomicLong nextSeq = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger overflow = new AtomicInteger();
    private final List<Future<?>> producers = new ArrayList<>();
    private final ExecutorService pool = producerPool();

    FixedRate(double rate, long totalNanos) {
      capacity = (int) Math.min(Integer.MAX_VALUE - 8, rate * totalNanos / 1e9 * 1.5 + 10_000);
      probe.startWindow(capacity);
      int threads = options.producers();
      long interval = (long) (threads * 1e9 / rate);
      for (int i = 0; i < threads; i++) {
        long first = start + i * interval / threads;
        producers.add(
            pool.submit(
                () -> {
                  long due = first;
                  while (!stop.get()) {
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                      LockSupport.parkNanos(wait);
                      continue;
                    }
                    long seq = nextSeq.getAndIncrement();
                    if (seq >= capacity) {
                      overflow.incrementAndGet();
                      return null;
                    }
                    system.produce(seq);
                    due += interval;
                  }
                  return null;
                }));
      }
    }

    /** Sequence numbers handed out so far (at most the window's capacity). */
    long produced() {
      return Math.min(nextSeq.get(), capacity);
    }

    boolean overflowed() {
      return overflow.get() > 0;
    }

    /** Stops the producers and waits for their last transactions; rethrows a producer's failure. */
    void stop() throws Exception {
      stop.set(true);
      for (Future<?> producer : producers) {
        producer.get();
      }
    }

    @Override
    public void close() {
      stop.set(true);
      pool.shutdownNow();
      try {
        pool.awaitTermination(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private ExecutorService producerPool() {
    AtomicInteger n = new AtomicInteger();
    return Executors.newFixedThreadPool(
        options.producers(),
        r -> {
          Thread t = new Thread(r, "bench-producer-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  private static void sleep(long nanos) throws InterruptedException {
    if (nanos > 0) {
      TimeUnit.NANOSECONDS.sleep(nanos);
    }
  }

  private static boolean await(BooleanSupplier condition, long timeoutNanos)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      TimeUnit.MILLISECONDS.sleep(5);
    }
    return true;
  }
}
