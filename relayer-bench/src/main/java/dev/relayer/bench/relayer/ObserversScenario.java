package dev.relayer.bench.relayer;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.bench.Payload;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.pipeline.CpuTime;
import dev.relayer.bench.report.Ratio;
import dev.relayer.dispatch.spi.DeliveryComponent;
import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.dispatch.spi.SendBatch;
import dev.relayer.micrometer.internal.DeliveryMeters;
import dev.relayer.micrometer.internal.Meters;
import dev.relayer.micrometer.internal.TagValues;
import dev.relayer.opentelemetry.RelayerTracing;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Scenario 12, what the meters and the send spans cost per message on their own: the dispatch
 * path's observing work, with no database and no broker, so that its CPU time is read without the
 * burn-down's spread.
 */
public final class ObserversScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "observers";

  private static final int BATCH = 100;
  private static final int BATCHES = 64;

  /** What one timed round runs for each batch. */
  private enum Variant {
    BARE,
    SPANS,
    METERS,
    BOTH;

    /** The variant's name in the figures' keys and labels. */
    String key() {
      return name().toLowerCase(Locale.ROOT);
    }

    boolean spans() {
      return this == SPANS || this == BOTH;
    }

    boolean meters() {
      return this == METERS || this == BOTH;
    }
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "12. Meters and send spans per message, without a database";
  }

  @Override
  public String description() {
    return "The observing work of direct dispatch, alone on one thread: batches of "
        + BATCH
        + " messages with the burn-downs' headers (a share `--trace-sample` of them with a"
        + " sampled `traceparent`, the rest unsampled) sent to one destination through a"
        + " transport that accepts them, and for each message the `sent` event the dispatcher"
        + " emits, and for each batch its `batchSent`. Four variants: *bare* (the transport"
        + " alone, events to no listener), *spans* (the transport through `RelayerTracing`, on"
        + " the SDK set up as in scenario 11), *meters* (the events to `RelayerMetrics`' delivery"
        + " meters on a Prometheus registry) and *both*. Each runs `--seconds` twice, in the order"
        + " bare, spans, meters, both, both, meters, spans, bare. *Added* is the JVM's CPU time"
        + " per message (every thread, the span processor's included) over *bare*'s. Its ratio"
        + " to scenario 11's plain direct burn-down JVM CPU per message, when both run, is the"
        + " share of the dispatcher's own CPU that observing adds.";
  }

  @Override
  public List<Ratio> ratios() {
    return List.of(
        Ratio.of(
            "meters and spans added / plain direct burn-down, JVM CPU per message",
            ID + ".both.added.cpu",
            ObservabilityScenario.ID + ".plain.direct.cpu.jvm"));
  }

  @Override
  public boolean warmsUp() {
    return true;
  }

  @Override
  public void warmUp(ScenarioContext context) throws Exception {
    measure(context, context.options().warmup());
  }

  @Override
  public void run(ScenarioContext context) throws Exception {
    measure(context, context.options().window());
  }

  private static void measure(ScenarioContext context, Duration window) throws Exception {
    double sample = context.options().traceSample();
    AtomicLong exported = new AtomicLong();
    SdkTracerProvider tracerProvider = BenchTracing.provider(sample, exported);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (OpenTelemetrySdk openTelemetry =
        OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build()) {
      Transport bare = new AcceptingTransport();
      Transport traced = RelayerTracing.create(openTelemetry).transport(bare, "bench");
      RelayerEventListener meters =
          new DeliveryMeters(
              new Meters(registry, "bench"),
              new TagValues("transport", 32, Function.identity()),
              null);
      List<List<OutgoingMessage>> batches = batches(sample);
      Map<Variant, long[]> totals = new HashMap<>();
      Variant[] order = Variant.values();
      for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < order.length; i++) {
          Variant variant = order[pass == 0 ? i : order.length - 1 - i];
          long[] round = round(variant, variant.spans() ? traced : bare, meters, batches, window);
          long[] total = totals.computeIfAbsent(variant, v -> new long[2]);
          total[0] += round[0];
          total[1] += round[1];
        }
      }
      double bareCpu = perMessage(totals.get(Variant.BARE));
      for (Variant variant : order) {
        double cpu = perMessage(totals.get(variant));
        context.record(variant.key() + ".cpu", variant.key() + ": JVM CPU per message", "µs", cpu);
        if (variant != Variant.BARE) {
          context.record(
              variant.key() + ".added.cpu",
              variant.key() + ": JVM CPU per message added to bare",
              "µs",
              cpu - bareCpu);
        }
      }
      tracerProvider.forceFlush();
    } finally {
      registry.close();
    }
    context.record(
        "spans.exported",
        "spans exported (all variants, dropped)",
        "spans",
        (double) exported.get());
  }

  /** Runs {@code variant} for {@code window}; returns {messages, JVM CPU nanoseconds}. */
  private static long[] round(
      Variant variant,
      Transport transport,
      RelayerEventListener meters,
      List<List<OutgoingMessage>> batches,
      Duration window)
      throws Exception {
    Instant createdAt = Instant.now();
    long messages = 0;
    long id = 0;
    long cpu = CpuTime.jvmNanos();
    long end = System.nanoTime() + window.toNanos();
    while (System.nanoTime() < end) {
      for (List<OutgoingMessage> batch : batches) {
        long started = System.nanoTime();
        List<SendResult> results =
            transport.send(new TransportBatch(Payload.DESTINATION, batch, Duration.ofSeconds(30)));
        if (variant.meters()) {
          meters.batchSent(
              new SendBatch(
                  Payload.TRANSPORT,
                  Payload.DESTINATION,
                  batch.size(),
                  results.size(),
                  SendBatch.Outcome.SUCCESS,
                  Duration.ofNanos(System.nanoTime() - started)));
          for (OutgoingMessage message : batch) {
            meters.sent(
                new DeliveryEvent(
                    ++id,
                    message.messageId(),
                    Payload.TRANSPORT,
                    Payload.DESTINATION,
                    null,
                    1,
                    DeliveryComponent.DIRECT,
                    createdAt,
                    null));
          }
        }
        messages += batch.size();
      }
    }
    return new long[] {messages, CpuTime.jvmNanos() - cpu};
  }

  private static double perMessage(long[] total) {
    return total[1] / 1_000.0 / total[0];
  }

  /** The burn-downs' messages, {@code sample} of them with a sampled {@code traceparent}. */
  private static List<List<OutgoingMessage>> batches(double sample) {
    Map<String, String> sampled = Payload.headers();
    Map<String, String> unsampled = Payload.unsampledHeaders();
    List<List<OutgoingMessage>> batches = new ArrayList<>();
    long n = 0;
    for (int b = 0; b < BATCHES; b++) {
      List<OutgoingMessage> batch = new ArrayList<>(BATCH);
      for (int i = 0; i < BATCH; i++, n++) {
        // The share of every hundred, in a fixed pattern (the burn-downs' rows draw it).
        boolean isSampled = (n % 100) < Math.round(sample * 100);
        batch.add(
            new OutgoingMessage(
                UUID.randomUUID(),
                Payload.MESSAGE_TYPE,
                isSampled ? sampled : unsampled,
                Payload.body(),
                null,
                null));
      }
      batches.add(List.copyOf(batch));
    }
    return batches;
  }

  /**
   * Accepts every message and keeps nothing; unlike {@link ProbeTransport} it reads no header, so
   * that <i>bare</i> is as near to nothing as a transport call gets.
   */
  private static final class AcceptingTransport implements Transport {

    @Override
    public String name() {
      return Payload.TRANSPORT;
    }

    @Override
    public int maxBatchSize() {
      return BATCH;
    }

    @Override
    public boolean preservesBatchOrder() {
      return true;
    }

    @Override
    public List<SendResult> send(TransportBatch batch) {
      List<SendResult> results = new ArrayList<>(batch.messages().size());
      for (int i = 0; i < batch.messages().size(); i++) {
        results.add(SendResult.accepted());
      }
      return results;
    }

    @Override
    public void close() {}
  }
}
