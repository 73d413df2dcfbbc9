package dev.relayer.transport.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.testkit.transport.BrokerFixture;
import dev.relayer.testkit.transport.ConsumedMessage;
import dev.relayer.testkit.transport.RestartableBrokerFixture;
import dev.relayer.testkit.transport.TransportContract;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The transport contract against a real RabbitMQ ({@value RabbitMqFixture#URI_VARIABLE}), plus the
 * RabbitMQ-specific routing rules. The restart test cuts a TCP proxy in front of the shared broker
 * rather than stopping it, so other clients of the broker are not disturbed.
 */
public class RabbitMqTransportIT extends TransportContract {

  private RabbitMqFixture broker;
  private RabbitMqFixture proxied;
  private int closedPort;

  /** Whether the fixtures' transports publish ordered batches; {@code false} here. */
  protected boolean orderedBatches() {
    return false;
  }

  @BeforeAll
  void connect() throws Exception {
    broker = RabbitMqFixture.direct(orderedBatches());
    proxied = RabbitMqFixture.proxied(orderedBatches());
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
  }

  @AfterAll
  void disconnect() throws Exception {
    if (proxied != null) {
      proxied.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Override
  protected BrokerFixture broker() {
    return broker;
  }

  @Override
  protected RestartableBrokerFixture restartableBroker() {
    return proxied;
  }

  @Override
  protected Transport openUnreachableTransport() {
    return RabbitMqTransport.builder()
        .uri("amqp://guest:guest@127.0.0.1:" + closedPort + "/")
        .build();
  }

  @Override
  protected String unreachableAddress() {
    return "127.0.0.1:" + closedPort;
  }

  @Override
  protected String malformedDestination() {
    return "/";
  }

  /** {@code basic.return}: an exchange exists but nothing is bound for the routing key. */
  @Override
  protected boolean rejectsUnroutableForGood() {
    return true;
  }

  /** A queue that is full and rejects publishes nacks them; it may drain, so they are retried. */
  @Override
  protected boolean rejectsOversizedBodiesForGood() {
    return false;
  }

  @Test
  void routesThroughANamedExchangeWithTheRoutingKey() throws Exception {
    String queue = broker.declareQueue(Map.of());
    String exchange = "relayer-it-topic-" + UUID.randomUUID();
    try (Channel channel = broker.admin().createChannel()) {
      channel.exchangeDeclare(exchange, "topic", false, true, null);
      channel.queueBind(queue, exchange, "order.#");
    }
    Transport transport = open(broker.openTransport());
    List<OutgoingMessage> batch = messages(3);

    List<SendResult> results =
        transport.send(
            new TransportBatch(exchange + "/order.created/eu", batch, Duration.ofSeconds(10)));
    List<SendResult> unmatched =
        transport.send(
            new TransportBatch(
                exchange + "/invoice.created/eu", messages(1), Duration.ofSeconds(10)));

    assertThat(results).allMatch(SendResult::isAccepted);
    assertThat(unmatched)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.error()).contains("unroutable");
              assertThat(r.isPermanent()).isTrue();
            });
    List<ConsumedMessage> consumed = broker.consume("/" + queue, 3, Duration.ofSeconds(10));
    assertThat(consumed.stream().map(ConsumedMessage::messageId).collect(Collectors.toList()))
        .containsExactlyElementsOf(
            batch.stream().map(m -> m.messageId().toString()).collect(Collectors.toList()));
  }

  @Test
  void keepsBatchOrderOnItsWayToAQueue() throws Exception {
    String destination = broker.createDestination();
    Transport transport = open(broker.openTransport());
    List<OutgoingMessage> batch = messages(200);

    List<SendResult> results =
        transport.send(new TransportBatch(destination, batch, Duration.ofSeconds(10)));

    assertThat(results).hasSize(200).allMatch(SendResult::isAccepted);
    List<ConsumedMessage> consumed = broker.consume(destination, 200, Duration.ofSeconds(10));
    assertThat(consumed.stream().map(ConsumedMessage::messageId).collect(Collectors.toList()))
        .containsExactlyElementsOf(
            batch.stream().map(m -> m.messageId().toString()).collect(Collectors.toList()));
  }

  @Test
  void aMissingExchangeIsUnavailableNotRejectedSoTheRowsWaitForItWithTheBrokersReason()
      throws Exception {
    Transport transport = open(broker.openTransport());

    List<SendResult> results =
        transport.send(
            new TransportBatch(
                "relayer-it-no-such-exchange-" + UUID.randomUUID() + "/key",
                messages(3),
                Duration.ofSeconds(10)));

    // An operator can declare the exchange: no message is to blame, none is spent.
    assertThat(results)
        .hasSize(3)
        .allMatch(SendResult::isUnavailable)
        .noneMatch(SendResult::isPermanent);
    assertThat(results.get(0).error()).contains("NOT_FOUND");
    // The connection survives a channel error: the next batch goes through.
    String destination = broker.createDestination();
    assertThat(transport.send(new TransportBatch(destination, messages(1), Duration.ofSeconds(10))))
        .allMatch(SendResult::isAccepted);
  }

  @Test
  void aMalformedDestinationFailsTheBatchNamingIt() {
    Transport transport = open(broker.openTransport());

    assertThatThrownBy(
            () -> transport.send(new TransportBatch("/", messages(1), Duration.ofSeconds(10))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("destination '/'");
  }

  @Test
  void aMessageTypeLongerThanAnAmqpShortStringFailsAloneForGoodNamingTheField() throws Exception {
    List<OutgoingMessage> batch = new ArrayList<>(messages(5));
    batch.set(2, withType(batch.get(2), "t".repeat(300)));

    assertOnlyTheThirdIsRejected(batch, "messageType is 300 bytes of UTF-8");
  }

  @Test
  void aHeaderNameLongerThanAnAmqpShortStringFailsAloneForGoodNamingTheHeader() throws Exception {
    List<OutgoingMessage> batch = new ArrayList<>(messages(5));
    Map<String, String> headers = new HashMap<>(batch.get(2).headers());
    headers.put("h".repeat(300), "value");
    OutgoingMessage odd = batch.get(2);
    batch.set(
        2,
        new OutgoingMessage(
            odd.messageId(), odd.messageType(), headers, odd.body(), null, odd.tenantId()));

    assertOnlyTheThirdIsRejected(batch, "header '" + "h".repeat(40) + "…(300 characters)'");
  }

  @Test
  void problemsNameEveryFieldAmqpCannotCarry() {
    Transport transport = open(broker.openTransport());
    OutgoingMessage message =
        new OutgoingMessage(
            UUID.randomUUID(),
            "é".repeat(128),
            Map.of("x-" + "n".repeat(254), "v", "fine", "v"),
            new byte[] {1},
            null,
            null);

    assertThat(transport.problems("x".repeat(256) + "/key", message))
        .containsExactly(
            "destination '"
                + "x".repeat(40)
                + "…(260 characters)': the exchange name is longer than 255 bytes",
            "messageType is 256 bytes of UTF-8; an AMQP message type holds at most 255",
            "header 'x-"
                + "n".repeat(38)
                + "…(256 characters)': its name is 256 bytes of UTF-8; an AMQP header name"
                + " holds at most 255");
  }

  /**
   * Sends {@code batch} (five messages, the third unsendable) and checks that only the third is
   * rejected for good, with an error containing {@code error}, and that the others arrive — with
   * ordered batches, the two after it are not sent and are retried.
   */
  private void assertOnlyTheThirdIsRejected(List<OutgoingMessage> batch, String error)
      throws Exception {
    Transport transport = open(broker.openTransport());
    String destination = broker.createDestination();

    List<SendResult> results =
        transport.send(new TransportBatch(destination, batch, Duration.ofSeconds(10)));

    assertThat(results).hasSize(5);
    assertThat(results.get(2).isPermanent()).as("result %s", results.get(2)).isTrue();
    assertThat(results.get(2).error()).contains(error);
    List<OutgoingMessage> delivered = new ArrayList<>(batch);
    delivered.remove(2);
    if (orderedBatches()) {
      assertThat(results.subList(3, 5))
          .allSatisfy(r -> assertThat(r.isAccepted() || r.isPermanent()).isFalse());
      delivered = delivered.subList(0, 2);
    } else {
      assertThat(results.subList(3, 5)).allMatch(SendResult::isAccepted);
    }
    assertThat(results.subList(0, 2)).allMatch(SendResult::isAccepted);
    List<ConsumedMessage> consumed =
        broker.consume(destination, delivered.size(), Duration.ofSeconds(10));
    assertThat(consumed.stream().map(ConsumedMessage::messageId).collect(Collectors.toList()))
        .containsExactlyElementsOf(
            delivered.stream().map(m -> m.messageId().toString()).collect(Collectors.toList()));
  }

  private static OutgoingMessage withType(OutgoingMessage message, String type) {
    return new OutgoingMessage(
        message.messageId(), type, message.headers(), message.body(), null, message.tenantId());
  }
}
