package dev.relayer.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.inbox.InboxFixture;
import dev.relayer.inbox.InboxGuard;
import dev.relayer.inbox.InboxResult;
import dev.relayer.transport.kafka.KafkaFixture;
import dev.relayer.transport.kafka.KafkaTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The inbox guard on real Kafka records, written by Relayer's Kafka transport and read by a {@code
 * KafkaConsumer} that commits its offsets by hand. Runs against {@code RELAYER_KAFKA_BOOTSTRAP}
 * when set, else a private single-node KRaft broker of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaInboxIT {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private InboxFixture db;
  private KafkaFixture broker;
  private Transport transport;

  @BeforeAll
  void start() throws Exception {
    db = new InboxFixture();
    broker = KafkaFixture.externalOrOwnBroker();
    transport = KafkaTransport.builder().properties(broker.producerProperties()).build();
  }

  @AfterAll
  void stop() throws Exception {
    transport.close();
    broker.close();
    db.close();
  }

  @Test
  void aSecondRecordOfTheSameMessageIdIsCommittedAndDroppedAndTheHandlerRunsOnce()
      throws Exception {
    String topic = broker.createTopic(1, Map.of());
    OutgoingMessage message = InboxFixture.message("OrderPlaced", "acme");
    // The sweeper's replay after a crash between the acknowledgement and the delete: a second
    // record with the same relayer-message-id.
    publish(topic, message);
    publish(topic, message);
    KafkaInbox inbox = KafkaInbox.of(db.guard("billing-dup"));
    int callsBefore = db.calls.size();
    String group = "billing-dup-" + UUID.randomUUID();

    List<InboxResult> results = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = consumer(group, topic)) {
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (results.size() < 2 && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          results.add(inbox.handle(consumer, record, db.bill));
        }
      }
      assertThat(committed(consumer, topic)).as("committed offset").isEqualTo(2);
    }

    assertThat(results).hasSize(2);
    assertThat(results.get(0)).isInstanceOf(InboxResult.Processed.class);
    assertThat(results.get(1)).isInstanceOf(InboxResult.Duplicate.class);
    assertThat(db.calls.size() - callsBefore).isEqualTo(1);
    assertThat(db.calls.get(callsBefore).messageType()).isEqualTo("OrderPlaced");
    assertThat(db.calls.get(callsBefore).tenantId()).isEqualTo("acme");
    assertThat(db.calls.get(callsBefore).headers()).containsEntry("x-order", "42");
    assertThat(db.billedTenant(message.messageId())).isEqualTo("acme");
  }

  @Test
  void aHandlerFailureRollsBackTheInboxRowAndTheRecordIsReadAgainAndHandledOnce() throws Exception {
    String topic = broker.createTopic(1, Map.of());
    OutgoingMessage first = InboxFixture.message("OrderPlaced", null);
    OutgoingMessage second = InboxFixture.message("OrderPlaced", null);
    publish(topic, first);
    publish(topic, second);
    KafkaInbox inbox = KafkaInbox.of(db.guard("billing-fail"));
    int callsBefore = db.calls.size();
    db.failNext.set(1);
    String group = "billing-fail-" + UUID.randomUUID();

    int failures = 0;
    try (KafkaConsumer<String, byte[]> consumer = consumer(group, topic)) {
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (db.billedRows(second.messageId()) == 0 && System.nanoTime() < deadline) {
        ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(200));
        int failed = inbox.handleAll(consumer, records, db.bill);
        if (failed > 0) {
          assertThat(db.inboxRows("billing-fail", first.messageId()))
              .as("inbox rows after the rolled-back try")
              .isZero();
          assertThat(db.inboxRows("billing-fail", second.messageId()))
              .as("the record after the failed one waits for the next poll")
              .isZero();
        }
        failures += failed;
      }
      assertThat(committed(consumer, topic)).as("committed offset").isEqualTo(2);
    }

    assertThat(failures).isEqualTo(1);
    assertThat(db.calls.subList(callsBefore, db.calls.size()))
        .extracting(call -> call.messageId())
        .as("the failed try, then each record once, in order")
        .containsExactly(first.messageId(), first.messageId(), second.messageId());
    assertThat(db.billedRows(first.messageId())).isEqualTo(1);
    assertThat(db.inboxRows("billing-fail", first.messageId())).isEqualTo(1);
  }

  @Test
  void aCrashBetweenTheCommitAndTheOffsetCommitRereadsTheRecordAndDropsIt() throws Exception {
    String topic = broker.createTopic(1, Map.of());
    OutgoingMessage message = InboxFixture.message("OrderPlaced", "globex");
    publish(topic, message);
    InboxGuard guard = db.guard("billing-crash");
    int callsBefore = db.calls.size();
    String group = "billing-crash-" + UUID.randomUUID();

    // The first consumer commits the database transaction, then dies before committing the offset.
    try (KafkaConsumer<String, byte[]> crashing = consumer(group, topic)) {
      ConsumerRecord<String, byte[]> record = pollOne(crashing);
      assertThat(guard.handle(KafkaInbox.read(record), db.bill))
          .isInstanceOf(InboxResult.Processed.class);
      assertThat(db.inboxRows("billing-crash", message.messageId())).isEqualTo(1);
    } // closed without a commit: the group's offset stays before the record

    // The group's next consumer reads the record again and drops it.
    try (KafkaConsumer<String, byte[]> consumer = consumer(group, topic)) {
      ConsumerRecord<String, byte[]> again = pollOne(consumer);
      assertThat(again.offset()).isZero();
      assertThat(KafkaInbox.of(guard).handle(consumer, again, db.bill))
          .isInstanceOf(InboxResult.Duplicate.class);
      assertThat(committed(consumer, topic)).isEqualTo(1);
    }

    assertThat(db.calls.size() - callsBefore).as("the handler ran once").isEqualTo(1);
    assertThat(db.billedTenant(message.messageId())).isEqualTo("globex");
  }

  private void publish(String topic, OutgoingMessage message) throws Exception {
    List<SendResult> results =
        transport.send(new TransportBatch(topic, List.of(message), Duration.ofSeconds(20)));
    assertThat(results).singleElement().matches(SendResult::isAccepted, "accepted");
  }

  private KafkaConsumer<String, byte[]> consumer(String group, String topic) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(properties, new StringDeserializer(), new ByteArrayDeserializer());
    consumer.subscribe(List.of(topic));
    return consumer;
  }

  private static ConsumerRecord<String, byte[]> pollOne(KafkaConsumer<String, byte[]> consumer) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(200));
      if (!records.isEmpty()) {
        return records.iterator().next();
      }
    }
    throw new AssertionError("no record within " + WAIT);
  }

  private static long committed(KafkaConsumer<String, byte[]> consumer, String topic) {
    TopicPartition partition = new TopicPartition(topic, 0);
    OffsetAndMetadata offset = consumer.committed(Set.of(partition)).get(partition);
    return offset == null ? -1 : offset.offset();
  }
}
