package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.api.spi.Transport;
import dev.relayer.it.BillingConsumer.Received;
import dev.relayer.store.InboxOutcome;
import dev.relayer.transport.nats.NatsFixture;
import dev.relayer.transport.nats.NatsTransport;
import io.nats.client.ConsumerContext;
import io.nats.client.MessageConsumer;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End to end through the NATS server named by {@code RELAYER_NATS_URL} (default {@value
 * NatsFixture#DEFAULT_URL}), with JetStream: each test creates its own subject and the stream that
 * captures it; the consumer is a durable JetStream consumer with explicit acknowledgements. The
 * streams (and their consumers) are deleted after the class.
 *
 * <p>JetStream deduplicates by {@code Nats-Msg-Id}, which the transport sets to the message id, so
 * a crash replay meets two guards: the stream's duplicate window, then the inbox. Each has a test.
 */
class NatsEndToEndIT extends EndToEndContract {

  private NatsFixture broker;

  @BeforeAll
  void connect() throws Exception {
    broker = NatsFixture.shared();
  }

  @AfterAll
  void deleteStreamsAndDisconnect() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @Override
  protected String transportName() {
    return NatsTransport.DEFAULT_NAME;
  }

  @Override
  protected Transport openTransport() {
    return broker.openTransport();
  }

  @Override
  protected String createDestination() throws Exception {
    return broker.createDestination(); // duplicate window 2 minutes
  }

  @Override
  protected String createDestinationRejectingBodiesOver(int maxBodyBytes) throws Exception {
    return broker.createDestinationRejectingBodiesOver(maxBodyBytes);
  }

  @Override
  protected String senderAddress() {
    return broker.url();
  }

  @Override
  protected AutoCloseable startConsumer(String subject, BillingConsumer billing) throws Exception {
    ConsumerContext durable =
        broker
            .connection()
            .getStreamContext(broker.streamOf(subject))
            .createOrUpdateConsumer(
                ConsumerConfiguration.builder()
                    .durable(BillingConsumer.NAME)
                    .ackPolicy(AckPolicy.Explicit)
                    .build());
    MessageConsumer consumer =
        durable.consume(
            message -> {
              try {
                billing.handle(NatsFixture.toConsumed(message));
              } catch (RuntimeException e) {
                message.nak(); // rolled back: deliver it again
                return;
              }
              message.ack(); // after the inbox transaction committed
            });
    return consumer;
  }

  @Test
  void aSenderKilledAfterThePublishAckIsReplayedWithinTheDuplicateWindowAndTheStreamDropsIt()
      throws Exception {
    String subject = createDestination();

    List<Received> received = killSenderAfterAcceptanceThenSweep(subject, 1);

    // The replay carried the same Nats-Msg-Id within the stream's 2-minute duplicate window:
    // JetStream acknowledged it as a duplicate (so the transport reported it accepted and the row
    // was deleted) without storing it. The stream holds one message, so the consumer saw one copy
    // and the inbox never had to drop anything.
    assertThat(broker.storedMessages(subject)).isEqualTo(1);
    assertThat(received).extracting(Received::outcome).containsExactly(InboxOutcome.FIRST);
  }

  @Test
  void aSenderKilledAfterThePublishAckIsReplayedPastTheDuplicateWindowAndTheInboxDropsIt()
      throws Exception {
    // A window far shorter than the dead sender's claim: the stream has forgotten the id by the
    // time the sweeper replays it.
    Duration window = Duration.ofSeconds(1);
    assertThat(window).isLessThan(CrashAfterBrokerAcceptMain.CLAIM_DURATION.dividedBy(2));
    String subject = broker.createStream(stream -> stream.duplicateWindow(window));

    List<Received> received = killSenderAfterAcceptanceThenSweep(subject, 2);

    // The stream stored the replay as a new message; the consumer got both copies and its inbox
    // dropped the second.
    assertThat(broker.storedMessages(subject)).isEqualTo(2);
    assertThat(received)
        .extracting(Received::outcome)
        .containsExactly(InboxOutcome.FIRST, InboxOutcome.DUPLICATE);
  }
}
