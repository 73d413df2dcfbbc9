package dev.relayer.transport.rabbitmq;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.testkit.transport.ConsumedMessage;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A transport given several broker addresses connects to the first that answers, in the order
 * given, against the real RabbitMQ ({@value RabbitMqFixture#URI_VARIABLE}) behind a port that hangs
 * up on every connection, as a node going down does.
 */
class RabbitMqAddressesIT {

  private static RabbitMqFixture broker;

  @BeforeAll
  static void connect() throws Exception {
    broker = RabbitMqFixture.direct(false);
  }

  @AfterAll
  static void disconnect() throws Exception {
    broker.close();
  }

  /** The broker of {@value RabbitMqFixture#URI_VARIABLE} as an address entry. */
  static String brokerAddress() {
    URI uri = URI.create(RabbitMqFixture.brokerUri());
    return uri.getHost() + ":" + (uri.getPort() > 0 ? uri.getPort() : 5672);
  }

  @Test
  void deliversThroughTheNextAddressAfterTheFirstHangsUp() throws Exception {
    String destination = broker.createDestination();
    OutgoingMessage message =
        new OutgoingMessage(
            UUID.randomUUID(), "OrderPlaced", Map.of(), "order-1".getBytes(UTF_8), null, null);
    try (HangUpPort down = HangUpPort.start();
        RabbitMqTransport transport =
            RabbitMqTransport.builder()
                .uri(RabbitMqFixture.brokerUri())
                .addresses(List.of(down.address(), brokerAddress()))
                .build()) {

      List<SendResult> results =
          transport.send(new TransportBatch(destination, List.of(message), Duration.ofSeconds(10)));

      assertThat(results).singleElement().matches(SendResult::isAccepted);
      assertThat(down.connections()).as("connections to the first address").isEqualTo(1);
    }
    assertThat(broker.consume(destination, 1, Duration.ofSeconds(10)))
        .extracting(ConsumedMessage::messageId)
        .containsExactly(message.messageId().toString());
  }

  @Test
  void failingToConnectNamesEveryAddress() throws Exception {
    try (HangUpPort first = HangUpPort.start();
        HangUpPort second = HangUpPort.start();
        RabbitMqTransport transport =
            RabbitMqTransport.builder()
                .uri(RabbitMqFixture.brokerUri())
                .addresses(List.of(first.address(), second.address()))
                .connectTimeout(Duration.ofSeconds(1))
                .build()) {
      OutgoingMessage message =
          new OutgoingMessage(UUID.randomUUID(), "OrderPlaced", Map.of(), new byte[0], null, null);

      List<SendResult> results =
          transport.send(new TransportBatch("/nowhere", List.of(message), Duration.ofSeconds(5)));
      // Nothing reached a broker: unavailable, and the error names every address tried.
      assertThat(results)
          .singleElement()
          .satisfies(result -> assertThat(result.isUnavailable()).isTrue())
          .satisfies(
              result ->
                  assertThat(result.error())
                      .contains("RabbitMQ at " + first.address() + "," + second.address()));
      assertThat(first.connections()).isEqualTo(1);
      assertThat(second.connections()).isEqualTo(1);
    }
  }
}
