package dev.relayer.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.Relayer;
import dev.relayer.opentelemetry.RelayerTracing;
import dev.relayer.opentelemetry.TracingTransport;
import dev.relayer.spring.boot.tracing.RelayerTracingAutoConfiguration;
import dev.relayer.transport.memory.InMemoryTransport;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code relayer.tracing.*}: with an {@code OpenTelemetry} bean, the auto-configured Relayer writes
 * the writer's trace context at enqueue and sends under producer spans; without one, or turned off,
 * or without {@code relayer-opentelemetry}, nothing is traced and the application starts.
 */
class RelayerTracingAutoConfigurationIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  private ApplicationContextRunner runner() {
    return fixture
        .runner()
        .withConfiguration(AutoConfigurations.of(RelayerTracingAutoConfiguration.class))
        .withUserConfiguration(StarterFixture.MemoryTransport.class, PlacedOrders.Config.class)
        .withPropertyValues(StarterFixture.SWEEPER_OUT_OF_THE_WAY);
  }

  /** The application's OpenTelemetry: the SDK with an in-memory exporter. */
  @Configuration(proxyBeanMethods = false)
  static class Telemetry {
    @Bean
    InMemorySpanExporter spanExporter() {
      return InMemorySpanExporter.create();
    }

    @Bean
    OpenTelemetrySdk openTelemetry(InMemorySpanExporter exporter) {
      return OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .build();
    }
  }

  /** Places an order under {@code context} and returns the headers the transport was sent. */
  private static Map<String, String> placeUnder(ApplicationContext app, Context context) {
    InMemoryTransport memory = app.getBean(InMemoryTransport.class);
    try (Scope ignored = context.makeCurrent()) {
      app.getBean(PlacedOrders.class).place("memory", "orders", "order-1");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> memory.deliveries().size() == 1);
    return memory.deliveries().get(0).message().headers();
  }

  private static Span writerSpan(OpenTelemetrySdk sdk) {
    return sdk.getTracer("application").spanBuilder("place order").startSpan();
  }

  @Test
  void withAnOpenTelemetryBeanTheSendSpanIsTheChildOfTheWritersSpan() {
    runner()
        .withUserConfiguration(Telemetry.class)
        .run(
            app -> {
              assertThat(app).hasSingleBean(RelayerTracing.class);
              OpenTelemetrySdk sdk = app.getBean(OpenTelemetrySdk.class);
              Span writer = writerSpan(sdk);
              Map<String, String> sent = placeUnder(app, Context.root().with(writer));
              writer.end();

              List<SpanData> sends =
                  app.getBean(InMemorySpanExporter.class).getFinishedSpanItems().stream()
                      .filter(s -> s.getKind() == SpanKind.PRODUCER)
                      .toList();
              assertThat(sends).hasSize(1);
              SpanData send = sends.get(0);
              assertThat(send.getTraceId()).isEqualTo(writer.getSpanContext().getTraceId());
              assertThat(send.getParentSpanId()).isEqualTo(writer.getSpanContext().getSpanId());
              assertThat(sent.get("traceparent"))
                  .isEqualTo("00-" + send.getTraceId() + "-" + send.getSpanId() + "-01");
              assertThat(sent).doesNotContainKey("baggage");
              assertThat(app.getBean(InMemoryTransport.class))
                  .as("the Transport bean itself is not replaced")
                  .isNotInstanceOf(TracingTransport.class);
            });
  }

  @Test
  void relayerTracingBaggageWritesTheWritersBaggage() {
    runner()
        .withUserConfiguration(Telemetry.class)
        .withPropertyValues("relayer.tracing.baggage=true")
        .run(
            app -> {
              Span writer = writerSpan(app.getBean(OpenTelemetrySdk.class));
              Map<String, String> sent =
                  placeUnder(
                      app,
                      Context.root()
                          .with(writer)
                          .with(Baggage.builder().put("tenant", "acme").build()));
              writer.end();

              assertThat(sent).containsEntry("baggage", "tenant=acme");
            });
  }

  @Test
  void withoutAnOpenTelemetryBeanNothingIsTraced() {
    try (OpenTelemetrySdk elsewhere = OpenTelemetrySdk.builder().build()) {
      runner()
          .run(
              app -> {
                assertThat(app).doesNotHaveBean(RelayerTracing.class);
                Span writer = writerSpan(elsewhere);
                Map<String, String> sent = placeUnder(app, Context.root().with(writer));
                writer.end();
                assertThat(sent).doesNotContainKey("traceparent");
              });
    }
  }

  @Test
  void relayerTracingEnabledFalseTurnsTracingOff() {
    runner()
        .withUserConfiguration(Telemetry.class)
        .withPropertyValues("relayer.tracing.enabled=false")
        .run(
            app -> {
              assertThat(app).doesNotHaveBean(RelayerTracing.class);
              Span writer = writerSpan(app.getBean(OpenTelemetrySdk.class));
              Map<String, String> sent = placeUnder(app, Context.root().with(writer));
              writer.end();
              assertThat(sent).doesNotContainKey("traceparent");
              assertThat(app.getBean(InMemorySpanExporter.class).getFinishedSpanItems())
                  .noneMatch(s -> s.getKind() == SpanKind.PRODUCER);
            });
  }

  @Test
  void withoutRelayerOpenTelemetryOnTheClassPathTheRelayerStartsUntraced() {
    runner()
        .withUserConfiguration(Telemetry.class)
        .withClassLoader(new FilteredClassLoader(RelayerTracing.class))
        .run(
            app -> {
              assertThat(app).hasNotFailed();
              assertThat(app).hasSingleBean(Relayer.class);
              assertThat(app).doesNotHaveBean(RelayerTracing.class);
            });
  }
}
