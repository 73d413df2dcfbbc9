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
        .satisfies(r -> assertThat(r.error()).contains("unroutable"));
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
  void aMissingExchangeFailsEveryMessageWithTheBrokersReason() throws Exception {
    Transport transport = open(broker.openTransport());

    List<SendResult> results =
        transport.send(
            new TransportBatch(
                "relayer-it-no-such-exchange-" + UUID.randomUUID() + "/key",
                messages(3),
                Duration.ofSeconds(10)));

    assertThat(results).hasSize(3).noneMatch(SendResult::isAccepted);
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
}
