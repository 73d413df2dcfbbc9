package dev.relayer.inbox.rabbitmq;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.inbox.InboxFixture;
import dev.relayer.inbox.InboxGuard;
import dev.relayer.inbox.InboxResult;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The inbox guard on real RabbitMQ deliveries, published by Relayer's RabbitMQ transport and
 * consumed with the Java client's manual acks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RabbitMqInboxIT {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private InboxFixture db;
  private RabbitMqFixture broker;
  private Transport transport;
  private ConnectionFactory factory;

  @BeforeAll
  void start() throws Exception {
    db = new InboxFixture();
    broker = RabbitMqFixture.direct(false);
    transport = RabbitMqTransport.builder().uri(RabbitMqFixture.brokerUri()).build();
    factory = new ConnectionFactory();
    factory.setUri(RabbitMqFixture.brokerUri());
    if (factory.getVirtualHost().isEmpty()) {
      factory.setVirtualHost("/"); // a URI ending in a bare "/"
    }
  }

  @AfterAll
  void stop() throws Exception {
    transport.close();
    broker.close();
    db.close();
  }

  @Test
  void aSecondDeliveryOfTheSameMessageIdIsAckedAndDroppedAndTheHandlerRunsOnce() throws Exception {
    String queue = broker.declareQueue(Map.of());
    OutgoingMessage message = InboxFixture.message("OrderPlaced", "acme");
    // The sweeper's replay after a crash between the broker's confirm and the delete: the same
    // message id published twice.
    publish("/" + queue, message);
    publish("/" + queue, message);
    RabbitMqInbox inbox = RabbitMqInbox.of(db.guard("billing-dup"));
    BlockingQueue<InboxResult> results = new LinkedBlockingQueue<>();

    try (Connection connection = factory.newConnection("inbox-it-consumer")) {
      Channel channel = connection.createChannel();
      channel.basicConsume(
          queue,
          false,
          (tag, delivery) -> results.add(inbox.handle(channel, delivery, db.bill)),
          tag -> {});
      assertThat(results.poll(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(InboxResult.Processed.class);
      assertThat(results.poll(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(InboxResult.Duplicate.class);
    }

    assertThat(db.calls).hasSize(1);
    assertThat(db.calls.get(0).messageId()).isEqualTo(message.messageId());
    assertThat(db.calls.get(0).messageType()).isEqualTo("OrderPlaced");
    assertThat(db.calls.get(0).tenantId()).isEqualTo("acme");
    assertThat(db.calls.get(0).headers()).containsEntry("x-order", "42");
    assertThat(db.billedTenant(message.messageId())).isEqualTo("acme");
    assertThat(db.inboxRows("billing-dup", message.messageId())).isEqualTo(1);
    assertThat(readyMessages(queue))
        .as("both deliveries acked: nothing back in the queue")
        .isZero();
  }

  @Test
  void aHandlerFailureRollsBackTheInboxRowAndTheMessageComesAgainAndIsHandledOnce()
      throws Exception {
    String queue = broker.declareQueue(Map.of());
    OutgoingMessage message = InboxFixture.message("OrderPlaced", null);
    publish("/" + queue, message);
    RabbitMqInbox inbox = RabbitMqInbox.of(db.guard("billing-fail"));
    BlockingQueue<InboxResult> results = new LinkedBlockingQueue<>();
    BlockingQueue<Integer> inboxRowsAfterFailure = new LinkedBlockingQueue<>();
    BlockingQueue<Boolean> redelivered = new LinkedBlockingQueue<>();
    int callsBefore = db.calls.size();
    db.failNext.set(1);

    try (Connection connection = factory.newConnection("inbox-it-consumer")) {
      Channel channel = connection.createChannel();
      channel.basicConsume(
          queue,
          false,
          (tag, delivery) -> {
            redelivered.add(delivery.getEnvelope().isRedeliver());
            InboxResult result = inbox.handle(channel, delivery, db.bill);
            if (result instanceof InboxResult.Failed) {
              inboxRowsAfterFailure.add(db.inboxRows("billing-fail", message.messageId()));
            }
            results.add(result);
          },
          tag -> {});
      assertThat(results.poll(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOfSatisfying(
              InboxResult.Failed.class,
              failed -> assertThat(failed.cause()).hasMessage("billing is down (test)"));
      assertThat(results.poll(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(InboxResult.Processed.class);
    }

    assertThat(inboxRowsAfterFailure.poll()).as("inbox rows after the rolled-back try").isZero();
    assertThat(redelivered).containsExactly(false, true);
    assertThat(db.calls.size() - callsBefore)
        .as("handler calls: the failed one, then one")
        .isEqualTo(2);
    assertThat(db.billedRows(message.messageId()))
        .as("the failed try's row rolled back")
        .isEqualTo(1);
    assertThat(db.inboxRows("billing-fail", message.messageId())).isEqualTo(1);
    assertThat(readyMessages(queue)).isZero();
  }

  @Test
  void aCrashBetweenTheCommitAndTheAckRedeliversAndTheRedeliveredCopyIsDropped() throws Exception {
    String queue = broker.declareQueue(Map.of());
    OutgoingMessage message = InboxFixture.message("OrderPlaced", "globex");
    publish("/" + queue, message);
    InboxGuard guard = db.guard("billing-crash");
    int callsBefore = db.calls.size();

    // The first consumer commits, then its process dies before the ack: its connection is cut.
    CountDownLatch committed = new CountDownLatch(1);
    CountDownLatch hold = new CountDownLatch(1);
    Connection crashing = factory.newConnection("inbox-it-crashing");
    Channel crashingChannel = crashing.createChannel();
    crashingChannel.basicConsume(
        queue,
        false,
        (tag, delivery) -> {
          InboxResult result = guard.handle(RabbitMqInbox.read(delivery), db.bill);
          assertThat(result).isInstanceOf(InboxResult.Processed.class);
          committed.countDown();
          try {
            hold.await(); // the ack that never comes
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        },
        tag -> {});
    assertThat(committed.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(db.inboxRows("billing-crash", message.messageId())).isEqualTo(1);
    crashing.abort();
    hold.countDown();

    // RabbitMQ delivers the unacknowledged message again; the next consumer drops it.
    RabbitMqInbox inbox = RabbitMqInbox.of(guard);
    BlockingQueue<InboxResult> results = new LinkedBlockingQueue<>();
    BlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();
    try (Connection connection = factory.newConnection("inbox-it-consumer")) {
      Channel channel = connection.createChannel();
      channel.basicConsume(
          queue,
          false,
          (tag, delivery) -> {
            deliveries.add(delivery);
            results.add(inbox.handle(channel, delivery, db.bill));
          },
          tag -> {});
      assertThat(results.poll(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(InboxResult.Duplicate.class);
    }

    Delivery again = deliveries.poll();
    assertThat(again).isNotNull();
    assertThat(again.getEnvelope().isRedeliver()).isTrue();
    assertThat(again.getProperties().getMessageId()).isEqualTo(message.messageId().toString());
    assertThat(db.calls.size() - callsBefore).as("the handler ran once").isEqualTo(1);
    assertThat(db.billedTenant(message.messageId())).isEqualTo("globex");
    assertThat(readyMessages(queue)).isZero();
  }

  @Test
  void aDeliveryWithoutARelayerMessageIdIsRejectedWithoutRequeueAndNothingIsWritten()
      throws Exception {
    String queue = broker.declareQueue(Map.of());
    try (Channel admin = broker.admin().createChannel()) {
      admin.basicPublish("", queue, null, "not from Relayer".getBytes(UTF_8));
    }
    RabbitMqInbox inbox = RabbitMqInbox.of(db.guard("billing-unreadable"));
    BlockingQueue<InboxResult> results = new LinkedBlockingQueue<>();
    int callsBefore = db.calls.size();

    try (Connection connection = factory.newConnection("inbox-it-consumer")) {
      Channel channel = connection.createChannel();
      channel.basicConsume(
          queue,
          false,
          (tag, delivery) -> results.add(inbox.handle(channel, delivery, db.bill)),
          tag -> {});
      assertThat(results.poll(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOfSatisfying(
              InboxResult.Unreadable.class,
              unreadable -> assertThat(unreadable.reason()).contains("AMQP message-id"));
    }

    assertThat(db.calls.size()).isEqualTo(callsBefore);
    assertThat(readyMessages(queue)).as("rejected without requeue").isZero();
  }

  private void publish(String destination, OutgoingMessage message) throws Exception {
    List<SendResult> results =
        transport.send(new TransportBatch(destination, List.of(message), Duration.ofSeconds(10)));
    assertThat(results).singleElement().matches(SendResult::isAccepted, "accepted");
  }

  /** Messages ready in the queue; unacknowledged ones return to it when their channel closes. */
  private long readyMessages(String queue) throws Exception {
    try (Channel channel = broker.admin().createChannel()) {
      return channel.queueDeclarePassive(queue).getMessageCount();
    }
  }
}
