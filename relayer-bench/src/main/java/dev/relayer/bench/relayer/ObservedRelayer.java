package dev.relayer.bench.relayer;

import dev.relayer.api.spi.Transport;
import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Payload;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.bench.pipeline.ProducingSystem;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.Relayer;
import dev.relayer.micrometer.RelayerMetrics;
import dev.relayer.opentelemetry.RelayerTracing;
import dev.relayer.store.NewMessage;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * A {@link Relayer} built through its one entry point over the {@link ProbeTransport}, without
 * lanes, either plain or <em>observed</em>: its meters bound to {@code registry} ({@link
 * RelayerMetrics}, gauges refreshed at their default period) and traced with {@code openTelemetry}
 * ({@link RelayerTracing}: trace context written at enqueue, a producer span per send). Either way
 * each producer transaction runs under an application span of {@code openTelemetry}'s tracer, as in
 * a traced application; only the observed Relayer adds work of its own to it.
 */
final class ObservedRelayer implements ProducingSystem, DirectFeeder.Target, AutoCloseable {

  private final Relayer relayer;
  private final Optional<RelayerMetrics> metrics;
  private final Tracer tracer;
  private final DSLContext app;

  // One per instance on purpose: its CommitProbe reads what this instance's producers set.
  @SuppressWarnings("ThreadLocalUsage")
  private final ThreadLocal<long[]> committing = new ThreadLocal<>();

  private final Map<String, String> headers;

  private ObservedRelayer(
      DataSource pool,
      DeliveryProbe probe,
      BenchOptions options,
      boolean maintenance,
      OpenTelemetry openTelemetry,
      Optional<MeterRegistry> registry) {
    this.tracer = openTelemetry.getTracer("relayer-bench");
    // The payload's headers carry a fixed traceparent of the same size as a real one; traced, the
    // message goes without it, so that the enqueue writes the current span's.
    // --observe picks meters, spans or both for the observed Relayer.
    boolean traced = registry.isPresent() && !options.observe().equals("metrics");
    boolean metered = registry.isPresent() && !options.observe().equals("tracing");
    Map<String, String> payload = new LinkedHashMap<>(Payload.headers());
    if (traced) {
      payload.remove("traceparent");
    }
    this.headers = Map.copyOf(payload);
    Transport transport = new ProbeTransport(probe, 1000);
    Optional<RelayerTracing> tracing =
        traced ? Optional.of(RelayerTracing.builder(openTelemetry).build()) : Optional.empty();
    Relayer.Builder builder =
        Relayer.builder(pool)
            .transport(tracing.map(t -> t.transport(transport)).orElse(transport))
            .dispatch(dispatchOptions(options))
            .withoutLanes();
    if (maintenance) {
      builder.maintenance(MaintenanceOptions.defaults());
    } else {
      builder.withoutMaintenance();
    }
    this.relayer = builder.build();
    tracing.ifPresent(t -> t.install(relayer.store()));
    this.metrics =
        registry.filter(r -> metered).map(r -> RelayerMetrics.builder(relayer, r).build());
    // The probe's listener comes first, so the commit is timed before Relayer's hand-off.
    this.app =
        DSL.using(
            DSL.using(pool, SQLDialect.POSTGRES)
                .configuration()
                .deriveAppending(
                    new CommitProbe(committing, probe), relayer.transactionListener()));
    relayer.start();
    metrics.ifPresent(RelayerMetrics::start);
  }

  /**
   * A started Relayer, observed when {@code registry} is present; with maintenance at its defaults
   * or without it.
   */
  static ObservedRelayer start(
      DataSource pool,
      DeliveryProbe probe,
      BenchOptions options,
      boolean maintenance,
      OpenTelemetry openTelemetry,
      Optional<MeterRegistry> registry) {
    return new ObservedRelayer(pool, probe, options, maintenance, openTelemetry, registry);
  }

  private static DispatchOptions dispatchOptions(BenchOptions options) {
    return RelayerRig.dispatchOptions(options, DispatchOptions.defaults().queueCapacity());
  }

  /** The dispatch claim batch this Relayer runs with. */
  static int claimBatch(BenchOptions options) {
    return dispatchOptions(options).claimBatchSize();
  }

  @Override
  // The scope is held for its effect: the span is current while the transaction runs.
  @SuppressWarnings("try")
  public void produce(long seq) {
    Span span = tracer.spanBuilder("place order").startSpan();
    try (Scope scope = span.makeCurrent()) {
      committing.set(new long[] {seq});
      NewMessage.Builder builder =
          NewMessage.builder()
              .transport(Payload.TRANSPORT)
              .destination(Payload.DESTINATION)
              .messageType(Payload.MESSAGE_TYPE)
              .headers(headers)
              .body(Payload.body());
      if (seq >= 0) {
        builder.header(ProbeTransport.SEQ_HEADER, Long.toString(seq));
      }
      NewMessage message = builder.build();
      app.transaction(tx -> relayer.store().enqueue(tx.dsl(), message));
    } finally {
      committing.remove();
      span.end();
    }
  }

  @Override
  public void afterCommit(List<Long> ids) {
    relayer.afterCommit(ids);
  }

  @Override
  public int queuedIds() {
    return relayer.queuedIds();
  }

  @Override
  public void close() {
    metrics.ifPresent(RelayerMetrics::close);
    relayer.close();
  }
}
