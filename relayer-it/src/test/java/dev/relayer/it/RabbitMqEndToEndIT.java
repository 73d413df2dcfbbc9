package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import dev.relayer.api.spi.Transport;
import dev.relayer.it.BillingConsumer.Received;
import dev.relayer.store.InboxOutcome;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End to end through the RabbitMQ named by {@code RELAYER_RABBITMQ_URI} (default {@value
 * RabbitMqFixture#DEFAULT_URI}): each test declares its own queue and publishes to it through the
 * default exchange (destination {@code /queue}); the consumer is an amqp-client {@code
 * basicConsume} with manual acknowledgements. The queues are deleted after the class.
 */
class RabbitMqEndToEndIT extends EndToEndContract {

  private RabbitMqFixture broker;

  @BeforeAll
  void connect() throws Exception {
    broker = RabbitMqFixture.direct(false);
  }

  @AfterAll
  void deleteQueuesAndDisconnect() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @Override
  protected String transportName() {
    return RabbitMqTransport.DEFAULT_NAME;
  }

  @Override
  protected Transport openTransport() {
    return broker.openTransport();
  }

  @Override
  protected String createDestination() throws Exception {
    return broker.createDestination();
  }

  @Override
  protected String createDestinationRejectingBodiesOver(int maxBodyBytes) throws Exception {
    return broker.createDestinationRejectingBodiesOver(maxBodyBytes);
  }

  @Override
  protected String senderAddress() {
    return RabbitMqFixture.brokerUri();
  }

  @Override
  protected AutoCloseable startConsumer(String destination, BillingConsumer billing)
      throws Exception {
    String queue = destination.substring(destination.indexOf('/') + 1);
    Channel channel = broker.admin().createChannel();
    channel.basicQos(10);
    String tag =
        channel.basicConsume(
            queue,
            false,
            (consumerTag, delivery) -> {
              long deliveryTag = delivery.getEnvelope().getDeliveryTag();
              try {
                billing.handle(RabbitMqFixture.toConsumed(delivery));
              } catch (RuntimeException e) {
                channel.basicNack(deliveryTag, false, true); // rolled back: deliver it again
                return;
              }
              channel.basicAck(deliveryTag, false); // after the inbox transaction committed
            },
            consumerTag -> {});
    return () -> {
      channel.basicCancel(tag);
      channel.close();
    };
  }

  @Test
  void aSenderKilledAfterThePublisherConfirmIsReplayedAndTheInboxDropsTheDuplicate()
      throws Exception {
    List<Received> received = killSenderAfterAcceptanceThenSweep(createDestination(), 2);

    // RabbitMQ does not deduplicate: the queue holds both copies and the consumer gets both.
    assertThat(received)
        .extracting(Received::outcome)
        .containsExactly(InboxOutcome.FIRST, InboxOutcome.DUPLICATE);
  }
}
