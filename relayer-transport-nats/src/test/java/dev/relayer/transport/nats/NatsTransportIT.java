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
import dev.relayer.testkit.transport.TcpProxy;
import dev.relayer.testkit.transport.TransportContract;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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

  @Override
  protected String malformedDestination() {
    return "orders.*";
  }

  /**
   * No responders: nothing answered for the subject, which a publish cannot tell from a stream that
   * is briefly unavailable, so the message is retried.
   */
  @Override
  protected boolean rejectsUnroutableForGood() {
    return false;
  }

  /** A stream's maximum message size (JetStream error 10054) does not change by itself. */
  @Override
  protected boolean rejectsOversizedBodiesForGood() {
    return true;
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

  /**
   * A network that stops carrying bytes with the connection still open (a paused VM, a NAT entry
   * gone): the client's wait for the acknowledgement times out, and the row's error says so — a
   * retry, not a refusal by the stream.
   */
  @Test
  void aStalledNetworkIsReportedAsATimeoutNotARefusal() throws Exception {
    String subject = shared.createDestination();
    URI server = URI.create(shared.url());
    try (TcpProxy proxy = TcpProxy.start(server.getHost(), server.getPort())) {
      Transport transport =
          open(
              NatsTransport.builder()
                  .url("nats://127.0.0.1:" + proxy.port())
                  .orderedBatches(orderedBatches())
                  .build());
      assertThat(transport.send(new TransportBatch(subject, messages(1), TIMEOUT)))
          .allMatch(SendResult::isAccepted);

      proxy.stall();
      List<SendResult> results;
      try {
        results = transport.send(new TransportBatch(subject, messages(2), TIMEOUT));
      } finally {
        proxy.heal();
      }

      assertThat(results).noneMatch(SendResult::isAccepted).noneMatch(SendResult::isPermanent);
      assertThat(results.get(0).isTimedOut()).as("reported as a timeout").isTrue();
      assertThat(results.get(0).error())
          .startsWith("timed out: no JetStream publish acknowledgement on '" + subject + "'")
          .contains("the message may have been stored");
      assertThat(results).allSatisfy(r -> assertThat(r.error()).doesNotContain("refused"));
    }
  }

  @Test
  void aNonAsciiHeaderValueIsRejectedForGoodAloneNamingTheHeader() throws Exception {
    OutgoingMessage plain = messages(1).get(0);
    OutgoingMessage odd =
        new OutgoingMessage(
            plain.messageId(),
            plain.messageType(),
            Map.of("x-city", "Zürich"),
            plain.body(),
            null,
            null);

    assertOnlyTheSecondIsRejected(
        odd,
        "not sent: header 'x-city': its value has 'ü' (U+00FC) at index 1; NATS header values are"
            + " US-ASCII without CR or LF");
  }

  @Test
  void aBodyOverTheServersMaxPayloadIsRejectedForGoodAlone() throws Exception {
    long maxPayload = shared.connection().getServerInfo().getMaxPayload();
    OutgoingMessage plain = messages(1).get(0);
    OutgoingMessage huge =
        new OutgoingMessage(
            plain.messageId(),
            plain.messageType(),
            Map.of(),
            new byte[Math.toIntExact(maxPayload + 1)],
            null,
            null);

    assertOnlyTheSecondIsRejected(huge, "the NATS server takes at most " + maxPayload);
  }

  @Test
  void headersOverTheStreamsLimitAreRejectedForGoodAlone() throws Exception {
    OutgoingMessage plain = messages(1).get(0);
    OutgoingMessage bigHeaders =
        new OutgoingMessage(
            plain.messageId(),
            plain.messageType(),
            Map.of("x-big", "a".repeat(70_000)),
            plain.body(),
            null,
            null);

    assertOnlyTheSecondIsRejected(bigHeaders, "(error 10097)");
  }

  @Test
  void problemsNameEveryFieldNatsCannotCarry() {
    Transport transport = open(shared.openTransport());
    OutgoingMessage message =
        new OutgoingMessage(
            UUID.randomUUID(),
            "commande.créée",
            Map.of("bad:name", "v", "x-line", "a\r\nb"),
            new byte[] {1},
            null,
            null);

    assertThat(transport.problems("orders..created", message))
        .containsExactlyInAnyOrder(
            "destination 'orders..created' is not a NATS subject to publish to: it has an empty"
                + " token",
            "messageType cannot travel in the NATS header relayer-message-type: has 'é' (U+00E9)"
                + " at index 11; NATS header values are US-ASCII without CR or LF",
            "header 'bad:name': its name has ':' (U+003A) at index 3; NATS header names are"
                + " printable US-ASCII without ':'",
            "header 'x-line': its value has U+000D at index 1; NATS header values are US-ASCII"
                + " without CR or LF");
  }

  @Test
  void aSubjectTooLongForTheControlLineIsRejectedForGoodAndReported() {
    Transport transport = open(shared.openTransport());
    String subject = "orders." + "x".repeat(4096);

    assertThatThrownBy(() -> transport.send(new TransportBatch(subject, messages(1), TIMEOUT)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("is 4103 bytes long")
        .hasMessageContaining("a subject holds at most 3968");
    assertThat(transport.problems(subject, messages(1).get(0)))
        .singleElement()
        .satisfies(p -> assertThat(p).startsWith("destination 'orders.xxxxxxxxx"));
  }

  /**
   * Sends three messages with {@code odd} second and checks that only it is rejected for good (its
   * error containing {@code error}) and the others arrive — with ordered batches, the third is not
   * sent and is retried.
   */
  private void assertOnlyTheSecondIsRejected(OutgoingMessage odd, String error) throws Exception {
    Transport transport = open(shared.openTransport());
    String subject = shared.createDestination();
    List<OutgoingMessage> batch = new ArrayList<>(messages(3));
    batch.set(1, odd);

    List<SendResult> results = transport.send(new TransportBatch(subject, batch, TIMEOUT));

    assertThat(results.get(0).isAccepted()).isTrue();
    assertThat(results.get(1).isPermanent()).as("result %s", results.get(1)).isTrue();
    assertThat(results.get(1).error()).contains(error);
    if (transport.preservesBatchOrder()) {
      assertThat(results.get(2).isAccepted() || results.get(2).isPermanent()).isFalse();
    } else {
      assertThat(results.get(2).isAccepted()).isTrue();
    }
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
