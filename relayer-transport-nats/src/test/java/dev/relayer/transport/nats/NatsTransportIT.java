package dev.relayer.transport.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The transport contract against a real NATS server with JetStream ({@value
 * NatsFixture#URL_VARIABLE}), plus JetStream deduplication. The restart test kills and restarts a
 * private {@code nats-server} child process, never the shared server.
 */
public class NatsTransportIT extends TransportContract {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private NatsFixture shared;
  private NatsFixture restartable;
  private int closedPort;

  /** Whether the fixtures' transports publish ordered batches; {@code false} here. */
  protected boolean orderedBatches() {
    return false;
  }

  @BeforeAll
  void startServers() throws Exception {
    shared = NatsFixture.shared().orderedBatches(orderedBatches());
    restartable = NatsFixture.privateServer().orderedBatches(orderedBatches());
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
  }

  @AfterAll
  void stopServers() throws Exception {
    if (restartable != null) {
      restartable.close();
    }
    if (shared != null) {
      shared.close();
    }
  }

  @Override
  protected BrokerFixture broker() {
    return shared;
  }

  @Override
  protected RestartableBrokerFixture restartableBroker() {
    return restartable;
  }

  @Override
  protected Transport openUnreachableTransport() {
    return NatsTransport.builder().url("nats://127.0.0.1:" + closedPort).build();
  }

  @Override
  protected String unreachableAddress() {
    return "127.0.0.1:" + closedPort;
  }

  @Test
  void theStreamDropsAReplayedMessageId() throws Exception {
    Transport transport = open(shared.openTransport());
    String subject = shared.createDestination();
    List<OutgoingMessage> batch = messages(2);

    List<SendResult> first = transport.send(new TransportBatch(subject, batch, TIMEOUT));
    List<SendResult> replay = transport.send(new TransportBatch(subject, batch, TIMEOUT));

    assertThat(first).allMatch(SendResult::isAccepted);
    assertThat(replay)
        .as("a duplicate is acknowledged, so accepted")
        .allMatch(SendResult::isAccepted);
    assertThat(shared.storedMessages(subject)).isEqualTo(2);
  }

  @Test
  void aNonAsciiHeaderValueFailsItsMessageUnsent() throws Exception {
    Transport transport = open(shared.openTransport());
    String subject = shared.createDestination();
    List<OutgoingMessage> batch = new java.util.ArrayList<>(messages(3));
    OutgoingMessage plain = batch.get(1);
    batch.set(
        1,
        new OutgoingMessage(
            plain.messageId(),
            plain.messageType(),
            Map.of("x-city", "Zürich"),
            plain.body(),
            null,
            null));

    List<SendResult> results = transport.send(new TransportBatch(subject, batch, TIMEOUT));

    assertThat(results.get(0).isAccepted()).isTrue();
    assertThat(results.get(1).error()).contains("not sent");
    assertThat(results.get(2).isAccepted()).isEqualTo(!transport.preservesBatchOrder());
    int delivered = transport.preservesBatchOrder() ? 1 : 2;
    List<ConsumedMessage> consumed = shared.consume(subject, 3, Duration.ofSeconds(2));
    assertThat(consumed).hasSize(delivered);
  }

  @Test
  void aWildcardSubjectFailsTheBatchNamingIt() {
    Transport transport = open(shared.openTransport());

    assertThatThrownBy(() -> transport.send(new TransportBatch("orders.*", messages(1), TIMEOUT)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("destination 'orders.*'")
        .hasMessageContaining("wildcard");
  }
}
