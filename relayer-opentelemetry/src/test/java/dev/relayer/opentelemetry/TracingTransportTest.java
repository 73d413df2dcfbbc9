package dev.relayer.opentelemetry;

import static dev.relayer.opentelemetry.TestTracing.BATCH_COUNT;
import static dev.relayer.opentelemetry.TestTracing.DESTINATION;
import static dev.relayer.opentelemetry.TestTracing.ERROR_TYPE;
import static dev.relayer.opentelemetry.TestTracing.MESSAGE_ID;
import static dev.relayer.opentelemetry.TestTracing.OPERATION_NAME;
import static dev.relayer.opentelemetry.TestTracing.OPERATION_TYPE;
import static dev.relayer.opentelemetry.TestTracing.SYSTEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.transport.memory.InMemoryTransport;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingDecision;
import io.opentelemetry.sdk.trace.samplers.SamplingResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TracingTransportTest {

  static final String STORED_TRACE = "0af7651916cd43dd8448eb211c80319c";
  static final String STORED_SPAN = "b7ad6b7169203331";
  static final String STORED = "00-" + STORED_TRACE + "-" + STORED_SPAN + "-01";

  final TestTracing otel = new TestTracing();
  final RelayerTracing tracing = RelayerTracing.create(otel.sdk);
  final InMemoryTransport memory = InMemoryTransport.named("memory");

  @AfterEach
  void close() {
    otel.close();
  }

  static OutgoingMessage message(Map<String, String> headers) {
    return new OutgoingMessage(
        UUID.randomUUID(), "OrderPlaced", headers, new byte[] {1}, null, null);
  }

  static TransportBatch batch(OutgoingMessage... messages) {
    return new TransportBatch("orders", List.of(messages), Duration.ofSeconds(5));
  }

  @Test
  void theSendSpanIsAProducerChildOfTheStoredContextAndTheBrokerGetsItsContext() throws Exception {
    Transport traced = tracing.transport(memory);
    OutgoingMessage message =
        message(Map.of("traceparent", STORED, "tracestate", "vendor=abc", "x-own", "kept"));

    List<SendResult> results = traced.send(batch(message));

    assertThat(results).containsExactly(SendResult.accepted());
    assertThat(otel.spans()).hasSize(1);
    SpanData span = otel.spans().get(0);
    assertThat(span.getName()).isEqualTo("send orders");
    assertThat(span.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(span.getTraceId()).isEqualTo(STORED_TRACE);
    assertThat(span.getParentSpanId()).isEqualTo(STORED_SPAN);
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(span.getAttributes().get(SYSTEM)).isEqualTo("memory");
    assertThat(span.getAttributes().get(DESTINATION)).isEqualTo("orders");
    assertThat(span.getAttributes().get(OPERATION_TYPE)).isEqualTo("send");
    assertThat(span.getAttributes().get(OPERATION_NAME)).isEqualTo("send");
    assertThat(span.getAttributes().get(MESSAGE_ID)).isEqualTo(message.messageId().toString());
    assertThat(span.getAttributes().get(BATCH_COUNT)).as("one message is no batch").isNull();

    Map<String, String> sent = memory.deliveries().get(0).message().headers();
    assertThat(sent.get("traceparent"))
        .isEqualTo("00-" + STORED_TRACE + "-" + span.getSpanId() + "-01");
    assertThat(sent).containsEntry("tracestate", "vendor=abc").containsEntry("x-own", "kept");
    assertThat(memory.deliveries().get(0).message().messageId()).isEqualTo(message.messageId());
  }

  @Test
  void aMessageWithoutStoredContextIsSentUnderANewTrace() throws Exception {
    tracing.transport(memory).send(batch(message(Map.of())));

    SpanData span = otel.spans().get(0);
    assertThat(span.getParentSpanContext().isValid()).isFalse();
    assertThat(memory.deliveries().get(0).message().headers().get("traceparent"))
        .isEqualTo("00-" + span.getTraceId() + "-" + span.getSpanId() + "-01");
  }

  @Test
  void everyMessageOfABatchGetsItsOwnSpanWithTheBatchSize() throws Exception {
    OutgoingMessage a = message(Map.of("traceparent", STORED));
    OutgoingMessage b = message(Map.of());
    tracing.transport(memory).send(batch(a, b));

    assertThat(otel.spans()).hasSize(2);
    assertThat(otel.spans())
        .extracting(s -> s.getAttributes().get(BATCH_COUNT))
        .containsExactly(2L, 2L);
    assertThat(otel.spans())
        .extracting(s -> s.getAttributes().get(MESSAGE_ID))
        .containsExactlyInAnyOrder(a.messageId().toString(), b.messageId().toString());
  }

  @Test
  void aSamplerSeesTheMessagingAttributesAndAnUnsampledStoredTraceStaysUnsampled()
      throws Exception {
    List<Attributes> seen = new ArrayList<>();
    Sampler parentBased = Sampler.parentBased(Sampler.alwaysOn());
    Sampler recording =
        new Sampler() {
          @Override
          public SamplingResult shouldSample(
              Context parent,
              String traceId,
              String name,
              SpanKind kind,
              Attributes attributes,
              List<LinkData> links) {
            // A copy: the SDK goes on to fill the same map with the span's later attributes.
            seen.add(attributes.toBuilder().build());
            return parentBased.shouldSample(parent, traceId, name, kind, attributes, links);
          }

          @Override
          public String getDescription() {
            return "recording";
          }
        };
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    try (OpenTelemetrySdk sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .setSampler(recording)
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build()) {
      Transport traced = RelayerTracing.create(sdk).transport(memory);
      String unsampled = "00-" + STORED_TRACE + "-" + STORED_SPAN + "-00";
      OutgoingMessage dropped = message(Map.of("traceparent", unsampled));
      OutgoingMessage kept = message(Map.of("traceparent", STORED));

      traced.send(batch(dropped, kept));

      assertThat(seen).hasSize(2);
      for (Attributes attributes : seen) {
        assertThat(attributes.get(SYSTEM)).isEqualTo("memory");
        assertThat(attributes.get(DESTINATION)).isEqualTo("orders");
        assertThat(attributes.get(OPERATION_TYPE)).isEqualTo("send");
        assertThat(attributes.get(OPERATION_NAME)).isEqualTo("send");
        assertThat(attributes.get(BATCH_COUNT)).isEqualTo(2L);
        assertThat(attributes.get(MESSAGE_ID)).as("set on recording spans only").isNull();
      }
      assertThat(exporter.getFinishedSpanItems())
          .singleElement()
          .satisfies(
              span ->
                  assertThat(span.getAttributes().get(MESSAGE_ID))
                      .isEqualTo(kept.messageId().toString()));
      String sentUnsampled = memory.deliveries().get(0).message().headers().get("traceparent");
      assertThat(sentUnsampled).startsWith("00-" + STORED_TRACE + "-").endsWith("-00");
    }
  }

  @Test
  void aSendDroppedUnderAnUnsampledParentGoesOutAsStoredAndAnyOtherDecisionIsWritten()
      throws Exception {
    String unsampled = "00-" + STORED_TRACE + "-" + STORED_SPAN + "-00";
    Map<String, String> stored = Map.of("traceparent", unsampled, "tracestate", "vendor=abc");
    // Drops every span; under a parent with trace state "restamp=1", it writes "restamp=2".
    Sampler dropping =
        new Sampler() {
          @Override
          public SamplingResult shouldSample(
              Context parent,
              String traceId,
              String name,
              SpanKind kind,
              Attributes attributes,
              List<LinkData> links) {
            return new SamplingResult() {
              @Override
              public SamplingDecision getDecision() {
                return SamplingDecision.DROP;
              }

              @Override
              public Attributes getAttributes() {
                return Attributes.empty();
              }

              @Override
              public TraceState getUpdatedTraceState(TraceState parentTraceState) {
                return parentTraceState.get("restamp") == null
                    ? parentTraceState
                    : parentTraceState.toBuilder().put("restamp", "2").build();
              }
            };
          }

          @Override
          public String getDescription() {
            return "dropping";
          }
        };
    try (OpenTelemetrySdk sdk = sdkSampling(dropping)) {
      Transport traced = RelayerTracing.create(sdk).transport(memory);
      OutgoingMessage underUnsampled = message(stored);
      OutgoingMessage newTrace = message(Map.of("x-own", "kept"));
      OutgoingMessage restamped =
          message(Map.of("traceparent", unsampled, "tracestate", "restamp=1"));

      traced.send(batch(underUnsampled, newTrace, restamped));

      List<Map<String, String>> sent =
          memory.deliveries().stream().map(d -> d.message().headers()).toList();
      assertThat(sent.get(0)).as("the stored headers, parent span id included").isEqualTo(stored);
      assertThat(sent.get(1).get("traceparent"))
          .as("a dropped new trace still tells the consumer it is unsampled")
          .matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00")
          .doesNotContain(STORED_TRACE);
      assertThat(sent.get(1)).containsEntry("x-own", "kept");
      assertThat(sent.get(2).get("tracestate"))
          .as("the sampler's trace state")
          .isEqualTo("restamp=2");
      assertThat(sent.get(2).get("traceparent"))
          .startsWith("00-" + STORED_TRACE + "-")
          .doesNotContain(STORED_SPAN)
          .endsWith("-00");
    }
    memory.clear();
    try (OpenTelemetrySdk sdk = sdkSampling(Sampler.alwaysOn())) {
      RelayerTracing.create(sdk).transport(memory).send(batch(message(stored)));

      assertThat(memory.deliveries().get(0).message().headers().get("traceparent"))
          .as("a sampler that records under an unsampled parent decides")
          .startsWith("00-" + STORED_TRACE + "-")
          .doesNotContain(STORED_SPAN)
          .endsWith("-01");
    }
  }

  private static OpenTelemetrySdk sdkSampling(Sampler sampler) {
    return OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().setSampler(sampler).build())
        .build();
  }

  @Test
  void aFailedMessageEndsItsSpanWithStatusErrorAndItsNeighbourDoesNot() throws Exception {
    memory.reject(m -> m.headers().containsKey("x-fail"), "broker said no");
    OutgoingMessage failing = message(Map.of("x-fail", "1", "traceparent", STORED));
    OutgoingMessage fine = message(Map.of());

    List<SendResult> results = tracing.transport(memory).send(batch(failing, fine));

    assertThat(results.get(0).isAccepted()).isFalse();
    SpanData failed = spanOf(failing);
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(failed.getStatus().getDescription()).isEqualTo("broker said no");
    assertThat(failed.getAttributes().get(ERROR_TYPE)).isEqualTo("failed");
    assertThat(spanOf(fine).getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
  }

  @Test
  void aRejectedMessageEndsItsSpanWithStatusErrorAndTypeRejected() throws Exception {
    memory.rejectPermanently(m -> true, "malformed");
    OutgoingMessage message = message(Map.of());

    tracing.transport(memory).send(batch(message));

    SpanData span = spanOf(message);
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(span.getAttributes().get(ERROR_TYPE)).isEqualTo("rejected");
  }

  @Test
  void aBatchThatThrowsEndsEverySpanWithTheExceptionAndRethrowsIt() {
    IllegalStateException down = new IllegalStateException("connection lost");
    memory.failBatches(down);
    OutgoingMessage a = message(Map.of());
    OutgoingMessage b = message(Map.of());

    assertThatThrownBy(() -> tracing.transport(memory).send(batch(a, b))).isSameAs(down);

    assertThat(otel.spans()).hasSize(2);
    for (SpanData span : otel.spans()) {
      assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
      assertThat(span.getAttributes().get(ERROR_TYPE))
          .isEqualTo(IllegalStateException.class.getName());
      assertThat(span.getEvents()).extracting(e -> e.getName()).contains("exception");
    }
  }

  @Test
  void everythingButSendIsTheDelegates() throws Exception {
    InMemoryTransport ordered = InMemoryTransport.of("ordered", 7, true);
    ordered.forbid(m -> true, "header 'x' cannot travel");
    Transport traced = tracing.transport(ordered);
    assertThat(traced.name()).isEqualTo("ordered");
    assertThat(traced.maxBatchSize()).isEqualTo(7);
    assertThat(traced.preservesBatchOrder()).isTrue();
    assertThat(traced.problems("orders", message(Map.of())))
        .containsExactly("header 'x' cannot travel");
    assertThat(tracing.transport(ordered, "custom")).isInstanceOf(TracingTransport.class);
    assertThat(((TracingTransport) tracing.transport(ordered, "custom")).messagingSystem())
        .isEqualTo("custom");
  }

  @Test
  void badArgumentsAreRefusedNamingThem() {
    assertThatThrownBy(() -> tracing.transport(memory, " "))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("messagingSystem must not be blank");
    assertThatThrownBy(() -> tracing.transport(tracing.transport(memory)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("transport 'memory' is traced already: wrap it once");
    assertThatThrownBy(() -> RelayerTracing.create(null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("openTelemetry must not be null");
  }

  private SpanData spanOf(OutgoingMessage message) {
    return otel.spans().stream()
        .filter(s -> message.messageId().toString().equals(s.getAttributes().get(MESSAGE_ID)))
        .findFirst()
        .orElseThrow();
  }
}
