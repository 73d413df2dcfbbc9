package dev.relayer.micrometer.internal;

import static dev.relayer.micrometer.MeterNames.DEAD_ROWS;
import static dev.relayer.micrometer.MeterNames.ELIGIBLE;
import static dev.relayer.micrometer.MeterNames.FAILING;
import static dev.relayer.micrometer.MeterNames.GAUGE_REFRESH;
import static dev.relayer.micrometer.MeterNames.GAUGE_REFRESH_FAILURES;
import static dev.relayer.micrometer.MeterNames.LEASE_HOLDERS;
import static dev.relayer.micrometer.MeterNames.OLDEST_AGE;
import static dev.relayer.micrometer.MeterNames.OLDEST_ELIGIBLE_AGE;
import static dev.relayer.micrometer.MeterNames.OLDEST_FAILING_AGE;
import static dev.relayer.micrometer.MeterNames.PARKED_KEYS;
import static dev.relayer.micrometer.MeterNames.READ_LIMITED;
import static dev.relayer.micrometer.MeterNames.RETRYING;
import static dev.relayer.micrometer.MeterNames.TABLE_DEAD_TUPLES;
import static dev.relayer.micrometer.MeterNames.TRANSPORTS_FAILING;
import static dev.relayer.micrometer.MeterNames.XMIN_HORIZON_AGE;
import static dev.relayer.micrometer.MeterNames.XMIN_HORIZON_TRANSACTION_AGE;

import dev.relayer.dispatch.HealthReport;
import dev.relayer.dispatch.TransportSends;
import dev.relayer.schema.SchemaNames;
import dev.relayer.store.health.HorizonHolder;
import dev.relayer.store.health.LeaseState;
import dev.relayer.store.health.TableDeadTuples;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gauges, read from the last health report: {@link #refresh()} runs one check and swaps the
 * values in; the gauges only read them, so a scrape never touches the database. Before the first
 * refresh and after a failed one every gauge reads NaN.
 */
public final class HealthGauges {

  /** The lease kinds, by name: {@code sweeper}, {@code cleanup}, {@code lane/<n>}, … */
  static final List<String> LEASE_KINDS = List.of("sweeper", "cleanup", "lane", "instance");

  /** The tables whose dead tuples are reported, by base name. */
  static final List<String> TABLES =
      List.of(SchemaNames.OUTBOX, SchemaNames.OUTBOX_DEAD, SchemaNames.INBOX, SchemaNames.LEASES);

  private static final Logger log = LoggerFactory.getLogger(HealthGauges.class);

  /** One refresh's values; NaN where nothing was read. */
  record Values(
      double eligible,
      double oldestAge,
      double oldestEligibleAge,
      double retrying,
      double failing,
      double oldestFailingAge,
      double transportsFailing,
      double readLimited,
      double parkedKeys,
      double deadRows,
      Map<String, Double> leases,
      Map<String, Double> deadTuples,
      double xminAge,
      double xminTransactionAge) {

    static final Values UNKNOWN =
        new Values(
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Map.of(),
            Map.of(),
            Double.NaN,
            Double.NaN);

    double lease(String kind, boolean here) {
      return leases.getOrDefault(kind + (here ? "/this" : "/other"), Double.NaN);
    }

    double deadTuples(String table) {
      return deadTuples.getOrDefault(table, Double.NaN);
    }
  }

  private final String store;
  private final Supplier<HealthReport> check;
  private final String owner;
  private final Counter failures;
  private final Timer took;
  private volatile Values values = Values.UNKNOWN;
  private boolean failing;

  public HealthGauges(Meters meters, String store, Supplier<HealthReport> check, String owner) {
    this.store = store;
    this.check = check;
    this.owner = owner;
    gauge(
        meters,
        ELIGIBLE,
        "Eligible rows: pending, due, not claimed, not waiting out a retry",
        null,
        Values::eligible);
    gauge(
        meters,
        OLDEST_AGE,
        "Age of the oldest due pending row, eligible or not",
        "seconds",
        Values::oldestAge);
    gauge(
        meters,
        OLDEST_ELIGIBLE_AGE,
        "Age of the oldest eligible row since it became due",
        "seconds",
        Values::oldestEligibleAge);
    gauge(
        meters,
        RETRYING,
        "Pending rows waiting out a retry after a failed send",
        null,
        Values::retrying);
    gauge(
        meters,
        FAILING,
        "Due pending rows that failed at least once and were not sent since",
        null,
        Values::failing);
    gauge(
        meters,
        OLDEST_FAILING_AGE,
        "How long the oldest failing row has been due: it has had only failures since",
        "seconds",
        Values::oldestFailingAge);
    gauge(
        meters,
        TRANSPORTS_FAILING,
        "Transports whose sends in this process all fail, remembered across their rows' backoff",
        null,
        Values::transportsFailing);
    gauge(
        meters,
        READ_LIMITED,
        "1 when the outbox read stopped at its row limit: eligible and retrying are lower bounds",
        null,
        Values::readLimited);
    gauge(
        meters,
        PARKED_KEYS,
        "Ordering keys whose head is parked for an operator",
        null,
        Values::parkedKeys);
    gauge(meters, DEAD_ROWS, "Rows in the dead table", null, Values::deadRows);
    gauge(
        meters,
        XMIN_HORIZON_AGE,
        "Age in transaction ids of the oldest xmin horizon holder the role may see",
        null,
        Values::xminAge);
    gauge(
        meters,
        XMIN_HORIZON_TRANSACTION_AGE,
        "How long the oldest horizon-holding session's transaction has been open",
        "seconds",
        Values::xminTransactionAge);
    for (String kind : LEASE_KINDS) {
      for (boolean here : new boolean[] {true, false}) {
        meters.register(
            Gauge.builder(LEASE_HOLDERS, this, g -> g.values.lease(kind, here))
                .description("Live leases of a kind, held by this instance or another")
                .tags(meters.tags("kind", kind, "holder", here ? "this" : "other")));
      }
    }
    for (String table : TABLES) {
      meters.register(
          Gauge.builder(TABLE_DEAD_TUPLES, this, g -> g.values.deadTuples(table))
              .description("Dead tuples of a Relayer table (pg_stat_user_tables estimate)")
              .tags(meters.tags("table", table)));
    }
    this.took =
        meters.register(
            Timer.builder(GAUGE_REFRESH)
                .description("How long each gauge refresh (one health check) took")
                .tags(meters.tags()));
    this.failures =
        meters.register(
            Counter.builder(GAUGE_REFRESH_FAILURES)
                .description("Gauge refreshes that failed; the gauges read NaN until the next")
                .tags(meters.tags()));
  }

  private void gauge(
      Meters meters,
      String name,
      String description,
      @org.jspecify.annotations.Nullable String unit,
      ToDoubleFunction<Values> value) {
    Gauge.Builder<HealthGauges> builder =
        Gauge.builder(name, this, g -> value.applyAsDouble(g.values))
            .description(description)
            .tags(meters.tags());
    if (unit != null) {
      builder.baseUnit(unit);
    }
    meters.register(builder);
  }

  /**
   * Runs one health check and takes its values; on failure logs (WARN the first time, DEBUG while
   * it keeps failing), counts it, sets every gauge to NaN and returns false.
   */
  public synchronized boolean refresh() {
    HealthReport report;
    long started = System.nanoTime();
    try {
      report = check.get();
    } catch (RuntimeException e) {
      values = Values.UNKNOWN;
      failures.increment();
      if (!failing) {
        failing = true;
        log.warn("store={} metrics: the gauges' health check failed; they read NaN", store, e);
      } else {
        log.debug("store={} metrics: the gauges' health check failed again", store, e);
      }
      return false;
    } finally {
      took.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
    }
    if (failing) {
      failing = false;
      log.info("store={} metrics: the gauges' health check works again", store);
    }
    values = valuesOf(report);
    return true;
  }

  private Values valuesOf(HealthReport report) {
    // Leases expire by the database's clock: compare with it, never with this JVM's.
    Instant dbNow = report.xminHorizon().observedAt();
    Map<String, Double> leases = new HashMap<>();
    for (String kind : LEASE_KINDS) {
      leases.put(kind + "/this", 0.0);
      leases.put(kind + "/other", 0.0);
    }
    for (LeaseState lease : report.leases()) {
      if (!lease.expiresAt().isAfter(dbNow)) {
        continue;
      }
      String key = kindOf(lease.name()) + (lease.owner().equals(owner) ? "/this" : "/other");
      leases.computeIfPresent(key, (k, n) -> n + 1);
    }
    Map<String, Double> tuples = new HashMap<>();
    for (TableDeadTuples table : report.tables()) {
      tuples.put(table.table(), (double) table.deadTuples());
    }
    for (String table : TABLES) {
      tuples.putIfAbsent(table, 0.0);
    }
    List<HorizonHolder> holders = report.xminHorizon().holders();
    double xminAge = holders.stream().mapToLong(HorizonHolder::xminAge).max().orElse(0);
    double transactionAge =
        holders.stream()
            .filter(h -> h instanceof HorizonHolder.Session)
            .map(h -> ((HorizonHolder.Session) h).transactionAge())
            .flatMap(Optional::stream)
            .mapToDouble(HealthGauges::seconds)
            .max()
            .orElse(0);
    return new Values(
        report.eligible(),
        report.oldestPendingAge().map(HealthGauges::seconds).orElse(0.0),
        report.oldestEligibleAge().map(HealthGauges::seconds).orElse(0.0),
        report.retrying(),
        report.failing(),
        report.oldestFailingAge().map(HealthGauges::seconds).orElse(0.0),
        report.transports().values().stream().filter(TransportSends::failing).count(),
        report.rowLimitReached() ? 1.0 : 0.0,
        report.parkedKeys(),
        report.deadRows(),
        Map.copyOf(leases),
        Map.copyOf(tuples),
        xminAge,
        transactionAge);
  }

  private static String kindOf(String lease) {
    int slash = lease.indexOf('/');
    String kind = slash < 0 ? lease : lease.substring(0, slash);
    return LEASE_KINDS.contains(kind) ? kind : "";
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}
