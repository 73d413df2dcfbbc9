package dev.relayer.inbox.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.inbox.InboxFixture;
import dev.relayer.inbox.InboxGuard;
import dev.relayer.inbox.InboxResult;
import dev.relayer.transport.nats.NatsFixture;
import dev.relayer.transport.nats.NatsTransport;
import io.nats.client.Connection;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The inbox guard on real JetStream messages, published by Relayer's NATS transport and pulled by a
 * durable consumer with explicit acks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NatsInboxIT {

  private static final Duration WAIT = Duration.ofSeconds(20);

  /** Short, so that the crash test's redelivery comes soon. */
  private static final Duration ACK_WAIT = Duration.ofSeconds(2);

  private InboxFixture db;
  private NatsFixture broker;
  private Transport transport;

  @BeforeAll
  void start() throws Exception {
    db = new InboxFixture();
    broker = NatsFixture.shared();
    transport = NatsTransport.builder().url(broker.url()).build();
  }

  @AfterAll
  void stop() throws Exception {
    transport.close();
    broker.close();
    db.close();
  }

  @Test
  void aSecondDeliveryOfTheSameMessageIdIsAckedAndDroppedAndTheHandlerRunsOnce() throws Exception {
    // A short duplicate window, so that the replay of the same message id (the sweeper's, after a
    // crash between the acknowledgement and the delete) is stored, as it is past any window.
    String subject = broker.createStream(stream -> stream.duplicateWindow(Duration.ofSeconds(1)));
    OutgoingMessage message = InboxFixture.message("OrderPlaced", "acme");
    publish(subject, message);
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (broker.storedMessages(subject) < 2 && System.nanoTime() < deadline) {
      publish(subject, message); // acknowledged as a duplicate until the window has passed
      Thread.sleep(200);
    }
    assertThat(broker.storedMessages(subject)).isEqualTo(2);
    NatsInbox inbox = NatsInbox.of(db.guard("billing-dup"));
    int callsBefore = db.calls.size();

    List<InboxResult> results = new ArrayList<>();
    try (Connection connection = connect()) {
      JetStreamSubscription subscription = subscribe(connection, subject, "billing-dup");
      while (results.size() < 2) {
        Message next = next(subscription);
        results.add(inbox.handle(next, db.bill));
      }
      assertThat(results.get(0)).isInstanceOf(InboxResult.Processed.class);
      assertThat(results.get(1)).isInstanceOf(InboxResult.Duplicate.class);
      assertNothingLeft(subscription);
    }

    assertThat(db.calls.size() - callsBefore).isEqualTo(1);
    assertThat(db.calls.get(callsBefore).messageId()).isEqualTo(message.messageId());
    assertThat(db.calls.get(callsBefore).messageType()).isEqualTo("OrderPlaced");
    assertThat(db.calls.get(callsBefore).tenantId()).isEqualTo("acme");
    assertThat(db.calls.get(callsBefore).headers()).containsEntry("x-order", "42");
    assertThat(db.billedTenant(message.messageId())).isEqualTo("acme");
    assertThat(db.inboxRows("billing-dup", message.messageId())).isEqualTo(1);
  }

  @Test
  void aHandlerFailureRollsBackTheInboxRowAndTheMessageComesAgainAndIsHandledOnce()
      throws Exception {
    String subject = broker.createStream(stream -> {});
    OutgoingMessage message = InboxFixture.message("OrderPlaced", null);
    publish(subject, message);
    NatsInbox inbox = NatsInbox.of(db.guard("billing-fail"));
    int callsBefore = db.calls.size();
    db.failNext.set(1);

    try (Connection connection = connect()) {
      JetStreamSubscription subscription = subscribe(connection, subject, "billing-fail");
      Message first = next(subscription);
      assertThat(inbox.handle(first, db.bill))
          .isInstanceOfSatisfying(
              InboxResult.Failed.class,
              failed -> assertThat(failed.cause()).hasMessage("billing is down (test)"));
      assertThat(db.inboxRows("billing-fail", message.messageId()))
          .as("inbox rows after the rolled-back try")
          .isZero();
      assertThat(db.billedRows(message.messageId())).isZero();

      Message again = next(subscription); // nak: JetStream delivers it again at once
      assertThat(again.metaData().deliveredCount()).isEqualTo(2);
      assertThat(inbox.handle(again, db.bill)).isInstanceOf(InboxResult.Processed.class);
      assertNothingLeft(subscription);
    }

    assertThat(db.calls.size() - callsBefore).isEqualTo(2);
    assertThat(db.calls.get(callsBefore + 1).tenantId()).isNull();
    assertThat(db.billedRows(message.messageId())).isEqualTo(1);
    assertThat(db.inboxRows("billing-fail", message.messageId())).isEqualTo(1);
  }

  @Test
  void aCrashBetweenTheCommitAndTheAckRedeliversAndTheRedeliveredCopyIsDropped() throws Exception {
    String subject = broker.createStream(stream -> {});
    OutgoingMessage message = InboxFixture.message("OrderPlaced", "globex");
    publish(subject, message);
    InboxGuard guard = db.guard("billing-crash");
    int callsBefore = db.calls.size();

    // The first consumer commits, then its process dies before the ack: its connection closes.
    try (Connection crashing = connect()) {
      Message first = next(subscribe(crashing, subject, "billing-crash"));
      assertThat(guard.handle(NatsInbox.read(first), db.bill))
          .isInstanceOf(InboxResult.Processed.class);
      assertThat(db.inboxRows("billing-crash", message.messageId())).isEqualTo(1);
    }

    // After the ack wait, JetStream delivers the message again; the next consumer drops it.
    try (Connection connection = connect()) {
      JetStreamSubscription subscription = subscribe(connection, subject, "billing-crash");
      Message again = next(subscription);
      assertThat(again.metaData().deliveredCount()).isEqualTo(2);
      assertThat(again.getHeaders().getFirst(NatsInbox.MESSAGE_ID))
          .isEqualTo(message.messageId().toString());
      assertThat(NatsInbox.of(guard).handle(again, db.bill))
          .isInstanceOf(InboxResult.Duplicate.class);
      assertNothingLeft(subscription);
    }

    assertThat(db.calls.size() - callsBefore).as("the handler ran once").isEqualTo(1);
    assertThat(db.billedTenant(message.messageId())).isEqualTo("globex");
  }

  private void publish(String subject, OutgoingMessage message) throws Exception {
    List<SendResult> results =
        transport.send(new TransportBatch(subject, List.of(message), Duration.ofSeconds(10)));
    assertThat(results).singleElement().matches(SendResult::isAccepted, "accepted");
  }

  private Connection connect() throws Exception {
    return Nats.connect(broker.url());
  }

  private JetStreamSubscription subscribe(Connection connection, String subject, String durable)
      throws Exception {
    return connection
        .jetStream()
        .subscribe(
            subject,
            PullSubscribeOptions.builder().stream(broker.streamOf(subject))
                .durable(durable) // each test has its own stream
                .configuration(ConsumerConfiguration.builder().ackWait(ACK_WAIT).build())
                .build());
  }

  private static Message next(JetStreamSubscription subscription) {
    List<Message> messages = subscription.fetch(1, WAIT);
    assertThat(messages).as("a message within %s", WAIT).hasSize(1);
    return messages.get(0);
  }

  /** Waits until the consumer has no message pending or waiting for an ack. */
  private static void assertNothingLeft(JetStreamSubscription subscription) throws Exception {
    ConsumerInfo info = subscription.getConsumerInfo();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while ((info.getNumAckPending() > 0 || info.getNumPending() > 0)
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
      info = subscription.getConsumerInfo();
    }
    assertThat(info.getNumAckPending()).as("messages waiting for an ack").isZero();
    assertThat(info.getNumPending()).as("messages not yet delivered").isZero();
  }
}
