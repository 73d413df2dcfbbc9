package dev.relayer.opentelemetry;

import static dev.relayer.opentelemetry.TestTracing.DESTINATION;
import static dev.relayer.opentelemetry.TestTracing.ERROR_TYPE;
import static dev.relayer.opentelemetry.TestTracing.INBOX_OUTCOME;
import static dev.relayer.opentelemetry.TestTracing.MESSAGE_ID;
import static dev.relayer.opentelemetry.TestTracing.OPERATION_TYPE;
import static dev.relayer.opentelemetry.TestTracing.SYSTEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.dispatch.Relayer;
import dev.relayer.store.InboxOutcome;
import dev.relayer.store.NewMessage;
import dev.relayer.testkit.transport.BrokerFixture;
import dev.relayer.testkit.transport.ConsumedMessage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Writer → outbox → real broker → consumer: the consumer's span, restored from the headers a real
 * consumer of the broker received, is the child of the send span, in the writer's trace.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class BrokerTraceContract {

  static final Duration WAIT = Duration.ofSeconds(20);

  OutboxDatabase db;
  BrokerFixture broker;
  TestTracing otel;
  RelayerTracing tracing;

  abstract BrokerFixture openBroker() throws Exception;

  /** The transport's name and the spans' {@code messaging.system}. */
  abstract String system();

  @BeforeAll
  void setUp() throws Exception {
    db = new OutboxDatabase();
    broker = openBroker();
    otel = new TestTracing();
    tracing = RelayerTracing.create(otel.sdk);
  }

  @AfterAll
  void tearDown() throws Exception {
    otel.close();
    if (broker instanceof AutoCloseable closeable) {
      closeable.close();
    }
    db.close();
  }

  /** Enqueues one message under a writer span, lets a Relayer send it, and reads it back. */
  private Sent sendThroughTheBroker() throws Exception {
    String destination = broker.createDestination();
    Span writer = otel.writerSpan();
    try (Relayer relayer =
        Relayer.builder(db.database.dataSource())
            .transport(tracing.transport(broker.openTransport()))
            .withoutMaintenance()
            .withoutLanes()
            .build()) {
      tracing.install(relayer.store());
      relayer.start();
      NewMessage message = OutboxDatabase.message(system()).destination(destination).build();
      try (Scope ignored = writer.makeCurrent()) {
        relayer.dsl().transaction(tx -> relayer.store().enqueue(tx.dsl(), message));
      } finally {
        writer.end();
      }
      List<ConsumedMessage> consumed = broker.consume(destination, 1, WAIT);
      assertThat(consumed).hasSize(1);
      assertThat(consumed.get(0).messageId())
          .as("the broker carried the enqueued message's id")
          .isEqualTo(message.messageId().toString());
      return new Sent(writer, destination, consumed.get(0));
    }
  }

  private record Sent(Span writer, String destination, ConsumedMessage received) {
    ReceivedMessage asReceived(String system) {
      return new ReceivedMessage(
          system, destination, UUID.fromString(received.messageId()), received.headers());
    }
  }

  private SpanData sendSpanOf(String messageId) {
    return otel.spans().stream()
        .filter(s -> s.getKind() == SpanKind.PRODUCER)
        .filter(s -> messageId.equals(s.getAttributes().get(MESSAGE_ID)))
        .findFirst()
        .orElseThrow();
  }

  private List<SpanData> processSpansOf(String messageId) {
    return otel.spans().stream()
        .filter(s -> s.getKind() == SpanKind.CONSUMER)
        .filter(s -> messageId.equals(s.getAttributes().get(MESSAGE_ID)))
        .toList();
  }

  @Test
  void theConsumersSpanIsTheChildOfTheSendSpanInTheWritersTrace() throws Exception {
    Sent sent = sendThroughTheBroker();
    String messageId = sent.received().messageId();
    List<String> currentInHandler = new ArrayList<>();

    InboxOutcome first =
        tracing
            .inbox(db.store, "billing")
            .process(
                db.dsl,
                sent.asReceived(system()),
                tx -> currentInHandler.add(Span.current().getSpanContext().getSpanId()));

    assertThat(first).isEqualTo(InboxOutcome.FIRST);
    SpanData send = sendSpanOf(messageId);
    assertThat(send.getTraceId()).isEqualTo(sent.writer().getSpanContext().getTraceId());
    assertThat(send.getParentSpanId()).isEqualTo(sent.writer().getSpanContext().getSpanId());
    assertThat(send.getAttributes().get(SYSTEM)).isEqualTo(system());
    assertThat(send.getAttributes().get(DESTINATION)).isEqualTo(sent.destination());
    assertThat(sent.received().headers().get("traceparent"))
        .as("the broker carried the send span's traceparent")
        .isEqualTo("00-" + send.getTraceId() + "-" + send.getSpanId() + "-01");

    List<SpanData> processed = processSpansOf(messageId);
    assertThat(processed).hasSize(1);
    SpanData process = processed.get(0);
    assertThat(process.getName()).isEqualTo("process " + sent.destination());
    assertThat(process.getTraceId()).isEqualTo(send.getTraceId());
    assertThat(process.getParentSpanId()).isEqualTo(send.getSpanId());
    assertThat(process.getAttributes().get(OPERATION_TYPE)).isEqualTo("process");
    assertThat(process.getAttributes().get(SYSTEM)).isEqualTo(system());
    assertThat(process.getAttributes().get(DESTINATION)).isEqualTo(sent.destination());
    assertThat(process.getAttributes().get(INBOX_OUTCOME)).isEqualTo("first");
    assertThat(currentInHandler)
        .as("the consumer span is current while the handler runs")
        .containsExactly(process.getSpanId());

    InboxOutcome again =
        tracing
            .inbox(db.store, "billing")
            .process(
                db.dsl,
                sent.asReceived(system()),
                tx -> currentInHandler.add("the handler ran for a duplicate"));
    assertThat(again).isEqualTo(InboxOutcome.DUPLICATE);
    assertThat(currentInHandler).hasSize(1);
    assertThat(processSpansOf(messageId))
        .extracting(s -> s.getAttributes().get(INBOX_OUTCOME))
        .containsExactly("first", "duplicate");
  }

  @Test
  void aHandlerThatThrowsEndsTheConsumerSpanWithStatusErrorAndLeavesNoInboxRecord()
      throws Exception {
    Sent sent = sendThroughTheBroker();
    String messageId = sent.received().messageId();
    TracedInbox inbox = tracing.inbox(db.store, "shipping");

    assertThatThrownBy(
            () ->
                inbox.process(
                    db.dsl,
                    sent.asReceived(system()),
                    tx -> {
                      throw new IllegalStateException("warehouse closed");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("warehouse closed");

    SpanData failed = processSpansOf(messageId).get(0);
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(failed.getAttributes().get(ERROR_TYPE))
        .isEqualTo(IllegalStateException.class.getName());
    assertThat(failed.getParentSpanId()).isEqualTo(sendSpanOf(messageId).getSpanId());
    assertThat(inbox.process(db.dsl, sent.asReceived(system()), tx -> {}))
        .as("the rollback removed the inbox record: a redelivery is processed")
        .isEqualTo(InboxOutcome.FIRST);
  }
}
