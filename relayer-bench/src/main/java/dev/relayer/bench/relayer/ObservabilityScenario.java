package dev.relayer.bench.relayer;

import dev.relayer.bench.RowsScenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.pipeline.BurnDownDriver;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.bench.pipeline.SteadyStateDriver;
import dev.relayer.bench.report.Ratio;
import dev.relayer.dispatch.DispatchOptions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Scenario 11, the cost of observing Relayer: the steady state and a direct-dispatch burn-down,
 * each with Relayer's meters and tracing on beside the same with them off, in the same repetition.
 */
public final class ObservabilityScenario implements RowsScenario {

  /** Scenario id. */
  public static final String ID = "observability";

  private static final String PLAIN = "plain";
  private static final String OBSERVED = "observed";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "11. Metrics and tracing: their cost";
  }

  @Override
  public String description() {
    return "The steady state of scenario 4 and the direct-dispatch burn-down of scenario 3, each"
        + " run twice in a repetition — *plain* and *observed* — through `Relayer.builder(pool)`"
        + " (the one entry point; `ProbeTransport`, no lanes; the steady state with maintenance at"
        + " its defaults). Observed: `RelayerMetrics` bound to a `PrometheusMeterRegistry` (gauges"
        + " refreshed every 30 s, its default; not scraped) and `RelayerTracing` over the"
        + " OpenTelemetry SDK (`BatchSpanProcessor`, every span sampled — with `--trace-sample R`,"
        + " a parent-based trace-id ratio R of new traces and R of the burn-downs' rows written"
        + " with a sampled `traceparent` — exported to an exporter that drops them): the trace"
        + " context written at enqueue and a producer span per message"
        + " sent. In both, every producer transaction runs under an application span of the same"
        + " SDK, as in a traced application; the plain message carries a fixed `traceparent` of the"
        + " same size instead of the span's. The two orders alternate between repetitions (plain"
        + " first in the first; the burn-downs run twice each, in the order A B B A). Each measures its capacity; then both run at 25, 50 and 75% of the"
        + " *plain* capacity, so that their latencies are compared at the same offered rates."
        + " *Added p50* is the observed commit-to-send p50 at 50% load minus the plain one of the"
        + " same repetition. Each variant's burn-down figures, CPU per message included, add up"
        + " its two burn-downs.";
  }

  @Override
  public List<Ratio> ratios() {
    return List.of(
        new Ratio(
            "observed steady capacity / plain steady capacity",
            ID + ".observed.capacity.msgs",
            ID + ".plain.capacity.msgs",
            "≥ 0.97"),
        new Ratio(
            "observed direct burn-down / plain direct burn-down",
            ID + ".observed.direct.msgs",
            ID + ".plain.direct.msgs",
            "≥ 0.97"),
        new Ratio(
            "observed / plain machine CPU per message, direct burn-downs",
            ID + ".observed.direct.cpu.machine",
            ID + ".plain.direct.cpu.machine",
            "—"),
        new Ratio(
            "observed / plain JVM CPU per message, direct burn-downs",
            ID + ".observed.direct.cpu.jvm",
            ID + ".plain.direct.cpu.jvm",
            "—"),
        new Ratio(
            "observed / plain PostgreSQL CPU per message, direct burn-downs",
            ID + ".observed.direct.cpu.postgres",
            ID + ".plain.direct.cpu.postgres",
            "—"));
  }

  @Override
  public Map<String, String> targets() {
    return Map.of(ID + ".observed.at50.p50.added", "≤ 0.05 ms");
  }

  @Override
  public void run(ScenarioContext context, long rows) throws Exception {
    ScenarioDatabase db = context.database();
    db.installRelayerSchema();
    BenchTracing.noteObserving(context, "the burn-downs' rows");
    DataSource pool = db.pool("relayer", context.options().poolSize());
    AtomicLong exported = new AtomicLong();
    double sample = context.options().traceSample();
    SdkTracerProvider tracerProvider = BenchTracing.provider(sample, exported);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (OpenTelemetrySdk openTelemetry =
        OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build()) {
      boolean plainFirst = context.repetition() % 2 == 0;
      boolean[] order = plainFirst ? new boolean[] {false, true} : new boolean[] {true, false};
      double plainCapacity = Double.NaN;
      for (boolean observed : order) {
        double capacity =
            steady(
                context,
                pool,
                openTelemetry,
                observed ? Optional.of(registry) : Optional.empty(),
                OptionalDouble.empty());
        if (!observed) {
          plainCapacity = capacity;
        }
        db.execute("TRUNCATE " + OutboxRows.TABLE);
      }
      if (plainCapacity > 0) {
        // Both at the same offered rates: fractions of the plain capacity.
        for (boolean observed : order) {
          steady(
              context,
              pool,
              openTelemetry,
              observed ? Optional.of(registry) : Optional.empty(),
              OptionalDouble.of(plainCapacity));
          db.execute("TRUNCATE " + OutboxRows.TABLE);
        }
      } else {
        context.note("the plain steady state delivered nothing at saturation; no load levels");
      }
      // Burn-downs in the order A B B A: the one that runs first after the steady state pays for
      // it (in earlier runs it was the slower whichever it was), so each pays it once in two.
      BurnDownDriver.Timing plainTiming = BurnDownDriver.Timing.NONE;
      BurnDownDriver.Timing observedTiming = BurnDownDriver.Timing.NONE;
      for (boolean observed : new boolean[] {order[0], order[1], order[1], order[0]}) {
        BurnDownDriver.Timing timing =
            burnDown(
                context,
                db,
                pool,
                rows,
                openTelemetry,
                observed ? Optional.of(registry) : Optional.empty());
        if (observed) {
          observedTiming = observedTiming.plus(timing);
        } else {
          plainTiming = plainTiming.plus(timing);
        }
        db.execute("TRUNCATE " + OutboxRows.TABLE);
      }
      plainTiming.record(context, PLAIN + ".direct", PLAIN + " direct burn-downs (two)");
      observedTiming.record(context, OBSERVED + ".direct", OBSERVED + " direct burn-downs (two)");
      tracerProvider.forceFlush();
    } finally {
      registry.close();
    }
    OptionalDouble plain = context.recorded(PLAIN + ".at50.p50");
    OptionalDouble observed = context.recorded(OBSERVED + ".at50.p50");
    if (plain.isPresent() && observed.isPresent()) {
      context.record(
          OBSERVED + ".at50.p50.added",
          "observed at 50%: commit-to-send p50 added to plain's",
          "ms",
          observed.getAsDouble() - plain.getAsDouble());
    }
    context.record(
        "observed.spans", "spans exported (all runs, dropped)", "spans", (double) exported.get());
  }

  /**
   * With no {@code levelsOf}, measures and returns the capacity of the plain or observed Relayer;
   * with one, runs its load levels at fractions of that capacity (returning it).
   */
  private static double steady(
      ScenarioContext context,
      DataSource pool,
      OpenTelemetrySdk openTelemetry,
      Optional<MeterRegistry> registry,
      OptionalDouble levelsOf)
      throws Exception {
    String key = registry.isPresent() ? OBSERVED : PLAIN;
    DeliveryProbe probe = new DeliveryProbe();
    try (ObservedRelayer relayer =
        ObservedRelayer.start(pool, probe, context.options(), true, openTelemetry, registry)) {
      SteadyStateDriver driver =
          SteadyStateDriver.of(context, key, key + " steady state", relayer, probe);
      if (levelsOf.isPresent()) {
        driver.runLevels(levelsOf.getAsDouble());
        return levelsOf.getAsDouble();
      }
      return driver.measureCapacity();
    }
  }

  private static BurnDownDriver.Timing burnDown(
      ScenarioContext context,
      ScenarioDatabase db,
      DataSource pool,
      long rows,
      OpenTelemetrySdk openTelemetry,
      Optional<MeterRegistry> registry)
      throws Exception {
    String key = registry.isPresent() ? OBSERVED : PLAIN;
    OutboxRows.insertPending(db, rows, context.options().traceSample());
    IdRange range = IdRange.of(db);
    int queue = DispatchOptions.defaults().queueCapacity();
    DeliveryProbe probe = new DeliveryProbe();
    try (ObservedRelayer relayer =
            ObservedRelayer.start(pool, probe, context.options(), false, openTelemetry, registry);
        DirectFeeder feeder =
            new DirectFeeder(
                relayer,
                ObservedRelayer.claimBatch(context.options()),
                range.last() - rows + 1,
                range.last(),
                queue)) {
      return BurnDownDriver.measure(context, key + " direct burn-down", feeder, probe, rows, 0);
    }
  }
}
