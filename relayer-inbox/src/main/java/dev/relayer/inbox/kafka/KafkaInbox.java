package dev.relayer.inbox.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.RelayerHeaders;
import dev.relayer.inbox.InboxGuard;
import dev.relayer.inbox.InboxHandler;
import dev.relayer.inbox.InboxResult;
import dev.relayer.inbox.IncomingMessage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link InboxGuard} for records of a {@code KafkaConsumer} with {@code
 * enable.auto.commit=false}: reads Relayer's fields from the record headers ({@value
 * RelayerHeaders#MESSAGE_ID}, {@value RelayerHeaders#MESSAGE_TYPE}, {@value
 * RelayerHeaders#TENANT_ID}), runs the guard, then commits the record's offset after the database
 * commit.
 *
 * <pre>{@code
 * KafkaInbox billing = KafkaInbox.of(InboxGuard.create(relayer.store(), dsl, "billing"));
 * while (running) {
 *   billing.handleAll(consumer, consumer.poll(Duration.ofSeconds(1)), (tx, message) -> bill(tx, message));
 * }
 * }</pre>
 *
 * <table>
 *   <caption>How each result settles the record</caption>
 *   <tr><th>result</th><th>record</th></tr>
 *   <tr><td>processed, duplicate</td><td>its offset committed ({@code commitSync}), after the
 *       database commit</td></tr>
 *   <tr><td>failed</td><td>not committed; the consumer seeks back to it, so the next poll returns
 *       it again, and {@link #handleAll} skips the rest of that partition's records of the
 *       poll</td></tr>
 *   <tr><td>unreadable (no Relayer message id)</td><td>committed past and skipped, with a
 *       warning</td></tr>
 * </table>
 *
 * A process that dies after the database commit and before the offset commit leaves the offset
 * behind: after the rebalance the group's next consumer reads the record again, and the guard drops
 * that copy as a duplicate.
 */
public final class KafkaInbox {

  private static final Logger log = LoggerFactory.getLogger(KafkaInbox.class);

  private final InboxGuard guard;

  private KafkaInbox(InboxGuard guard) {
    this.guard = guard;
  }

  /** An adapter running {@code guard} for each record. */
  public static KafkaInbox of(InboxGuard guard) {
    return new KafkaInbox(Objects.requireNonNull(guard, "guard"));
  }

  /**
   * Relayer's fields of a record: the headers {@value RelayerHeaders#MESSAGE_ID}, {@value
   * RelayerHeaders#MESSAGE_TYPE} and {@value RelayerHeaders#TENANT_ID} (UTF-8), every other header
   * as UTF-8 text (the last of repeated names), and the value as the body: as it is when it is a
   * {@code byte[]}, UTF-8 when it is a {@code String}, empty for a tombstone or any other type (the
   * handler still has the record for a deserialized value).
   *
   * @throws InvalidInputException when {@value RelayerHeaders#MESSAGE_ID} is missing or not a UUID
   */
  public static IncomingMessage read(ConsumerRecord<?, ?> record) {
    Map<String, String> headers = new HashMap<>();
    String id = null;
    String type = "";
    String tenantId = null;
    for (Header header : record.headers()) {
      String value = header.value() == null ? "" : new String(header.value(), UTF_8);
      switch (header.key()) {
        case RelayerHeaders.MESSAGE_ID -> id = value;
        case RelayerHeaders.MESSAGE_TYPE -> type = value;
        case RelayerHeaders.TENANT_ID -> tenantId = value;
        default -> headers.put(header.key(), value);
      }
    }
    UUID messageId =
        IncomingMessage.parseMessageId(id, "Kafka header " + RelayerHeaders.MESSAGE_ID);
    Object value = record.value();
    byte[] body =
        value instanceof byte[] bytes
            ? bytes
            : value instanceof String text ? text.getBytes(UTF_8) : new byte[0];
    return new IncomingMessage(messageId, type, tenantId, headers, body);
  }

  /**
   * Guards one record and settles it on {@code consumer} (the consumer that polled it) as the class
   * documentation says. After a failed result, do not handle later records of the same partition
   * from the same poll (the consumer was moved back to the failed one); {@link #handleAll} takes
   * care of that.
   */
  public <K, V> InboxResult handle(
      Consumer<K, V> consumer, ConsumerRecord<K, V> record, InboxHandler handler) {
    TopicPartition partition = new TopicPartition(record.topic(), record.partition());
    IncomingMessage message;
    try {
      message = read(record);
    } catch (InvalidInputException e) {
      log.warn(
          "consumer={} topic={} partition={} offset={} skipped: {}",
          guard.consumer(),
          record.topic(),
          record.partition(),
          record.offset(),
          e.getMessage());
      commitPast(consumer, partition, record);
      return new InboxResult.Unreadable(String.valueOf(e.getMessage()));
    }
    InboxResult result = guard.handle(message, handler);
    if (result.acknowledge()) {
      commitPast(consumer, partition, record);
    } else {
      log.warn(
          "consumer={} id={} type={} handler failed, rolled back; offset {} of {} read again",
          guard.consumer(),
          message.messageId(),
          message.messageType(),
          record.offset(),
          partition,
          cause(result));
      consumer.seek(partition, record.offset());
    }
    return result;
  }

  /**
   * Guards every record of one poll, partition by partition in offset order; the first failure of a
   * partition moves the consumer back to that record and leaves the partition's later records for
   * the next poll. Other partitions go on.
   *
   * @return how many records failed (their partitions were moved back)
   */
  public <K, V> int handleAll(
      Consumer<K, V> consumer, ConsumerRecords<K, V> records, InboxHandler handler) {
    int failed = 0;
    for (TopicPartition partition : records.partitions()) {
      List<ConsumerRecord<K, V>> ofPartition = records.records(partition);
      for (ConsumerRecord<K, V> record : ofPartition) {
        if (handle(consumer, record, handler) instanceof InboxResult.Failed) {
          failed++;
          break;
        }
      }
    }
    return failed;
  }

  private static void commitPast(
      Consumer<?, ?> consumer, TopicPartition partition, ConsumerRecord<?, ?> record) {
    consumer.commitSync(Map.of(partition, new OffsetAndMetadata(record.offset() + 1)));
  }

  private static @Nullable Exception cause(InboxResult result) {
    return result instanceof InboxResult.Failed failed ? failed.cause() : null;
  }
}
