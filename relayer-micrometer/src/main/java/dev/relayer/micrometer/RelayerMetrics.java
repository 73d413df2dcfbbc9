package dev.relayer.micrometer;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.Relayer;
import dev.relayer.micrometer.internal.DeliveryMeters;
import dev.relayer.micrometer.internal.HealthGauges;
import dev.relayer.micrometer.internal.Meters;
import dev.relayer.micrometer.internal.StoreMeters;
import dev.relayer.micrometer.internal.TagValues;
import dev.relayer.store.StoreAttachment;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Micrometer meters for one {@link Relayer}: counters and timers fed by its events, gauges read
 * from its health check on a schedule. See {@link MeterNames} for the meters and {@code
 * docs/observability.md} for what each means and what to alert on.
 *
 * <pre>{@code
 * RelayerMetrics metrics = RelayerMetrics.builder(relayer, registry).build(); // binds
 * metrics.start();   // the gauges' refresh thread
 * ...
 * metrics.close();   // stops it, unbinds, removes the meters from the registry
 * }</pre>
 *
 * <p>{@link Builder#build()} registers the meters and the listeners on the Relayer and its store at
 * once: counters and timers count from then on, whether or not the Relayer was started. The gauges
 * read the values of the last refresh: {@link #start()} runs one on a thread of its own ({@code
 * relayer-<store>-metrics}) every {@code gaugeRefresh} (default 30 s, longer where a refresh is
 * slow), the first right away; {@link #refresh()} runs one on the caller's thread. A refresh is one
 * {@link Relayer#health()} check (two statements on Relayer's tables, four on PostgreSQL's
 * statistics views); a scrape never queries the database, however many threads scrape. Before the
 * first refresh, and after one that failed, every gauge reads NaN, and {@value
 * MeterNames#GAUGE_REFRESH_FAILURES} counts the failures.
 *
 * <h2>Tags</h2>
 *
 * Every meter carries {@code store} (default the store's {@code schema.prefix}). Tags that come
 * from rows are bounded: {@code transport} keeps the first 32 distinct names (later ones become
 * {@code other}); {@code consumer} the first 64. No meter is tagged with a message id, an ordering
 * key or a destination, unless {@link Builder#destinationTag} opts in with a mapping, whose
 * distinct results are bounded too.
 *
 * <p>Thread-safe. {@code start()} is idempotent; {@code close()} is safe before start and twice.
 */
public final class RelayerMetrics implements AutoCloseable {

  /** Default time between gauge refreshes. */
  public static final Duration DEFAULT_GAUGE_REFRESH = Duration.ofSeconds(30);

  /**
   * A refresh is followed by a pause of at least this many times its own duration, so that the
   * gauges' reads take at most a twentieth of the time of the connection that runs them.
   */
  public static final int REFRESH_PAUSE_FACTOR = 20;

  /** Default bound of the {@code destination} tag's values. */
  public static final int DEFAULT_MAX_DESTINATIONS = 100;

  /** Distinct {@code transport} tag values kept; later ones are tagged {@code other}. */
  public static final int MAX_TRANSPORTS = 32;

  /** Distinct {@code consumer} tag values kept; later ones are tagged {@code other}. */
  public static final int MAX_CONSUMERS = 64;

  private static final Logger log = LoggerFactory.getLogger(RelayerMetrics.class);

  private final Relayer relayer;
  private final String store;
  private final Duration gaugeRefresh;
  private final Meters meters;
  private final DeliveryMeters delivery;
  private final StoreMeters storeMeters;
  private final StoreAttachment storeAttachment;
  private final HealthGauges gauges;
  private final Object lifecycle = new Object();
  private @Nullable ScheduledExecutorService refresher;
  private boolean closed;

  private RelayerMetrics(Builder builder, String store) {
    this.relayer = builder.relayer;
    this.store = store;
    this.gaugeRefresh = builder.gaugeRefresh;
    this.meters = new Meters(builder.registry, store);
    TagValues destinations =
        builder.destinations == null
            ? null
            : new TagValues("destination", builder.maxDestinations, builder.destinations);
    this.delivery =
        new DeliveryMeters(
            meters, new TagValues("transport", MAX_TRANSPORTS, Function.identity()), destinations);
    this.storeMeters =
        new StoreMeters(meters, new TagValues("consumer", MAX_CONSUMERS, Function.identity()));
    this.gauges = new HealthGauges(meters, store, relayer::health, relayer.owner());
    relayer.addEventListener(delivery);
    this.storeAttachment = relayer.store().attach(storeMeters);
  }

  /** A builder binding {@code relayer}'s meters to {@code registry}. */
  public static Builder builder(Relayer relayer, MeterRegistry registry) {
    return new Builder(relayer, registry);
  }

  /** The {@code store} tag's value. */
  public String store() {
    return store;
  }

  /** Time between two gauge refreshes of {@link #start()}. */
  public Duration gaugeRefresh() {
    return gaugeRefresh;
  }

  /**
   * Starts refreshing the gauges, the first time at once and then every {@code gaugeRefresh}, or
   * longer where a refresh is slow: the pause after a refresh is {@link #pauseAfter the larger} of
   * {@code gaugeRefresh} and {@value #REFRESH_PAUSE_FACTOR} times the refresh's own duration.
   *
   * <p>A refresh's outbox read visits at most the health check's row limit of due rows (see {@link
   * dev.relayer.dispatch.RelayerHealth}), so past that limit its cost no longer grows with the
   * backlog. A large limit costs about half a second of server CPU per million rows on two cores
   * ({@code docs/benchmarks.md}). On its way to the oldest pending row the read also passes the
   * index entries of every row delivered since the previous refresh that no vacuum has removed yet,
   * about 3 – 4 µs of server CPU each after a burst of direct dispatch, unless the maintenance
   * worker's sweeper, which reads the same index every {@code sweepInterval}, passed them first
   * (with it running, a million-row burn-down's observed Relayer spent +0.6 µs of server CPU a
   * message, 95% interval −0.3 – +1.6, against +4.1 without it). Spaced by its duration, a refresh
   * keeps to a twentieth of one connection's time, and of the server CPU that connection uses, on
   * every instance that refreshes, whatever the limit; a read that took 6 s is followed by a pause
   * of 120 s, and the gauges lag by that much. {@value MeterNames#GAUGE_REFRESH} times each
   * refresh. Idempotent, and does nothing once closed.
   */
  public void start() {
    synchronized (lifecycle) {
      if (refresher != null || closed) {
        return;
      }
      ScheduledExecutorService pool =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "relayer-" + store + "-metrics");
                t.setDaemon(true);
                return t;
              });
      refresher = pool;
      pool.execute(() -> refreshAndSchedule(pool));
    }
  }

  /**
   * The pause after a refresh that took {@code took}: {@code gaugeRefresh}, or {@value
   * #REFRESH_PAUSE_FACTOR} times {@code took} where that is longer.
   */
  static Duration pauseAfter(Duration gaugeRefresh, Duration took) {
    Duration bound = took.multipliedBy(REFRESH_PAUSE_FACTOR);
    return bound.compareTo(gaugeRefresh) > 0 ? bound : gaugeRefresh;
  }

  private void refreshAndSchedule(ScheduledExecutorService pool) {
    long started = System.nanoTime();
    refreshQuietly();
    Duration pause = pauseAfter(gaugeRefresh, Duration.ofNanos(System.nanoTime() - started));
    try {
      // Nothing waits for the refresh: it reports its own failures (refreshQuietly).
      Future<?> unused =
          pool.schedule(() -> refreshAndSchedule(pool), pause.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // Closed meanwhile: no more refreshes.
    }
  }

  /**
   * Refreshes the gauges now, on the calling thread: one health check. Returns false when the check
   * failed (logged; the gauges then read NaN).
   */
  public boolean refresh() {
    return gauges.refresh();
  }

  private void refreshQuietly() {
    try {
      gauges.refresh();
    } catch (Throwable e) {
      // A throwing task would stop the schedule.
      log.warn("store={} metrics: gauge refresh failed", store, e);
    }
  }

  /**
   * Stops the refresh thread (waiting up to 5 s for a refresh in progress), unregisters the
   * listeners and removes this binding's meters from the registry. Safe before start and twice.
   */
  @Override
  public void close() {
    ScheduledExecutorService pool;
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
      pool = refresher;
      refresher = null;
    }
    if (pool != null) {
      pool.shutdownNow();
      try {
        if (!pool.awaitTermination(5, TimeUnit.SECONDS)) {
          log.warn("store={} metrics: a gauge refresh was still running at close", store);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    relayer.removeEventListener(delivery);
    storeAttachment.close();
    meters.removeAll();
  }

  /** Builds {@link RelayerMetrics}; every option has a default. */
  public static final class Builder {
    private final Relayer relayer;
    private final MeterRegistry registry;
    private @Nullable String storeTag;
    private Duration gaugeRefresh = DEFAULT_GAUGE_REFRESH;
    private @Nullable Function<String, String> destinations;
    private int maxDestinations = DEFAULT_MAX_DESTINATIONS;

    private Builder(Relayer relayer, MeterRegistry registry) {
      if (relayer == null) {
        throw new InvalidInputException("relayer must not be null");
      }
      if (registry == null) {
        throw new InvalidInputException("registry must not be null");
      }
      this.relayer = relayer;
      this.registry = registry;
    }

    /** The {@code store} tag's value; default the store's {@code schema.prefix}. Not blank. */
    public Builder storeTag(String store) {
      this.storeTag = store;
      return this;
    }

    /**
     * Time between gauge refreshes, the least: a slow refresh waits longer (see {@link
     * RelayerMetrics#start()}); positive, default 30 s.
     */
    public Builder gaugeRefresh(Duration gaugeRefresh) {
      this.gaugeRefresh = gaugeRefresh;
      return this;
    }

    /**
     * Opts in to a {@code destination} tag on the sent, failed, dead and parked counters and the
     * send timer: {@code mapping} turns a row's destination into the tag value (say, {@code
     * orders.eu.123} into {@code orders}); a null or blank result is tagged {@code other}. At most
     * {@code maxValues} distinct results are used, in the order first seen; every later one is
     * tagged {@code other}. Default: no destination tag.
     *
     * @param maxValues at least 1
     */
    public Builder destinationTag(Function<String, String> mapping, int maxValues) {
      this.destinations = mapping;
      this.maxDestinations = maxValues;
      return this;
    }

    /**
     * Validates every option at once, registers the meters and the listeners.
     *
     * @throws InvalidInputException naming every invalid option
     */
    public RelayerMetrics build() {
      List<String> problems = new ArrayList<>();
      if (storeTag != null && storeTag.isBlank()) {
        problems.add("metrics storeTag must not be blank");
      }
      if (gaugeRefresh == null || gaugeRefresh.isNegative() || gaugeRefresh.isZero()) {
        problems.add("metrics gaugeRefresh must be positive, was " + gaugeRefresh);
      }
      if (destinations != null && maxDestinations < 1) {
        problems.add("metrics destinationTag maxValues must be at least 1, was " + maxDestinations);
      }
      if (!problems.isEmpty()) {
        throw new InvalidInputException(problems);
      }
      return new RelayerMetrics(
          this, Objects.requireNonNullElse(storeTag, relayer.store().displayName()));
    }
  }
}
