package dev.relayer.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The consumer span's parent and the checks of a received message; no database involved. */
class TracedInboxTest {

  final TestTracing otel = new TestTracing();
  final TracedInbox inbox =
      RelayerTracing.create(otel.sdk)
          .inbox(RelayerStore.create(StoreOptions.defaults()), "billing");

  @AfterEach
  void close() {
    otel.close();
  }

  static ReceivedMessage received(Map<String, String> headers) {
    return new ReceivedMessage("rabbitmq", "orders", UUID.randomUUID(), headers);
  }

  @Test
  void theCarriedProducerSpanIsTheParentAndTheSpanIsCurrentUntilClosed() {
    Span before = Span.current();
    try (ProcessSpan span =
        inbox.start(received(Map.of("traceparent", TracingTransportTest.STORED)))) {
      assertThat(Span.current()).isSameAs(span.span());
    }
    assertThat(Span.current()).isSameAs(before);

    SpanData process = otel.spans().get(0);
    assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(process.getName()).isEqualTo("process orders");
    assertThat(process.getTraceId()).isEqualTo(TracingTransportTest.STORED_TRACE);
    assertThat(process.getParentSpanId()).isEqualTo(TracingTransportTest.STORED_SPAN);
    assertThat(process.getParentSpanContext().isRemote()).isTrue();
  }

  @Test
  void withoutCarriedContextTheCurrentSpanIsTheParent() {
    Span listener = otel.application().spanBuilder("listener").startSpan();
    try (Scope ignored = listener.makeCurrent();
        ProcessSpan span = inbox.start(received(Map.of()))) {
      assertThat(span.span().getSpanContext().getTraceId())
          .isEqualTo(listener.getSpanContext().getTraceId());
    } finally {
      listener.end();
    }
    SpanData process = otel.spansNamed("process orders").get(0);
    assertThat(process.getParentSpanId()).isEqualTo(listener.getSpanContext().getSpanId());
  }

  @Test
  void aReceivedMessageListsEveryProblem() {
    Map<String, String> nullValue = new HashMap<>();
    nullValue.put("traceparent", null);
    assertThatThrownBy(() -> new ReceivedMessage(" ", "", new UUID(0, 0), nullValue))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "messagingSystem must not be blank",
                        "destination must not be blank",
                        "messageId must not be the nil UUID",
                        "headers must not hold null names or values"));
    assertThatThrownBy(() -> RelayerTracing.create(otel.sdk).inbox(null, "billing"))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(
            () ->
                RelayerTracing.create(otel.sdk)
                    .inbox(RelayerStore.create(StoreOptions.defaults()), " "))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("consumer must not be blank");
  }
}
