package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.api.spi.Transport;
import dev.relayer.it.BillingConsumer.Received;
import dev.relayer.store.InboxOutcome;
import dev.relayer.transport.kafka.KafkaBrokerProcess;
import dev.relayer.transport.kafka.KafkaFixture;
import dev.relayer.transport.kafka.KafkaTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End to end through Kafka: the cluster named by {@code RELAYER_KAFKA_BOOTSTRAP}, else a private
 * single-node KRaft broker started as a child JVM for this class and killed after it. Each test
 * creates its own one-partition topic; the consumer is a {@link KafkaConsumer} in its own consumer
 * group that commits offsets after the inbox transaction. Topics and groups on an external cluster
 * are deleted after use.
 */
class KafkaEndToEndIT extends EndToEndContract {

  private KafkaBrokerProcess process;
  private KafkaFixture broker;

  @BeforeAll
  void startBroker() throws Exception {
    broker = KafkaFixture.external();
    if (broker == null) {
      process = KafkaBrokerProcess.start();
      broker = KafkaFixture.privateBroker(process);
    }
  }

  @AfterAll
  void stopBroker() throws Exception {
    try {
      if (broker != null) {
        broker.close();
      }
    } finally {
      if (process != null) {
        process.close();
      }
    }
  }

  @Override
  protected String transportName() {
    return KafkaTransport.DEFAULT_NAME;
  }

  @Override
  protected Transport openTransport() {
    return broker.openTransport();
  }

  @Override
  protected String createDestination() throws Exception {
    return broker.createTopic(1, Map.of());
  }

  @Override
  protected String createDestinationRejectingBodiesOver(int maxBodyBytes) throws Exception {
    return broker.createDestinationRejectingBodiesOver(maxBodyBytes);
  }

  @Override
  protected String senderAddress() {
    return broker.bootstrapServers();
  }

  @Override
  protected AutoCloseable startConsumer(String topic, BillingConsumer billing) {
    return new GroupConsumer(broker.bootstrapServers(), topic, billing);
  }

  @Test
  void aSenderKilledAfterTheProduceWasAcknowledgedIsReplayedAndTheInboxDropsTheDuplicate()
      throws Exception {
    List<Received> received = killSenderAfterAcceptanceThenSweep(createDestination(), 2);

    // Producer idempotence only removes a producer's own internal retries; the replay is a new
    // send (by a new producer, too), so the topic holds two records with the same message id.
    assertThat(received)
        .extracting(Received::outcome)
        .containsExactly(InboxOutcome.FIRST, InboxOutcome.DUPLICATE);
  }

  /**
   * A consumer-group member on its own thread: polls, hands each record to the billing consumer,
   * and commits the offsets once the inbox transactions committed. Closing it leaves the group and
   * deletes the group.
   */
  private static final class GroupConsumer implements AutoCloseable {

    private final String bootstrapServers;
    private final String group = "relayer-it-billing-" + UUID.randomUUID();
    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean closing;

    GroupConsumer(String bootstrapServers, String topic, BillingConsumer billing) {
      this.bootstrapServers = bootstrapServers;
      Properties properties = new Properties();
      properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
      properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      consumer =
          new KafkaConsumer<>(properties, new StringDeserializer(), new ByteArrayDeserializer());
      consumer.subscribe(List.of(topic));
      thread =
          new Thread(
              () -> {
                try {
                  while (!closing) {
                    ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(200));
                    for (ConsumerRecord<String, byte[]> record : records) {
                      billing.handle(KafkaFixture.toConsumed(record));
                    }
                    if (!records.isEmpty()) {
                      consumer.commitSync(); // after the inbox transactions committed
                    }
                  }
                } catch (WakeupException e) {
                  // closing
                } catch (Throwable e) {
                  failure.set(e);
                } finally {
                  consumer.close();
                }
              },
              "relayer-it-kafka-consumer");
      thread.start();
    }

    @Override
    public void close() throws Exception {
      closing = true;
      consumer.wakeup();
      thread.join(TimeUnit.SECONDS.toMillis(20));
      Properties properties = new Properties();
      properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      try (Admin admin = Admin.create(properties)) {
        admin.deleteConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);
      }
      if (failure.get() != null) {
        throw new AssertionError("the Kafka consumer failed", failure.get());
      }
    }
  }
}
