package dev.relayer.transport.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.testkit.transport.BrokerFixture;
import dev.relayer.testkit.transport.RestartableBrokerFixture;
import dev.relayer.testkit.transport.TransportContract;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The transport contract against a real Kafka broker: a private single-node KRaft broker run as a
 * child process, which the restart test kills and starts again. With {@value
 * KafkaFixture#BOOTSTRAP_VARIABLE} set, the everyday tests use that cluster instead.
 */
@ExtendWith(PrivateKafkaBroker.class)
public class KafkaTransportIT extends TransportContract {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private KafkaFixture restartable;
  private KafkaFixture shared;
  private int closedPort;

  /** Whether the fixtures' transports send ordered batches; {@code false} here. */
  protected boolean orderedBatches() {
    return false;
  }

  @BeforeAll
  void startBroker() throws Exception {
    restartable =
        KafkaFixture.privateBroker(PrivateKafkaBroker.get()).orderedBatches(orderedBatches());
    KafkaFixture external = KafkaFixture.external();
    shared = external != null ? external.orderedBatches(orderedBatches()) : restartable;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
  }

  @AfterAll
  void stopBroker() throws Exception {
    if (shared != null && shared != restartable) {
      shared.close();
    }
    if (restartable != null) {
      restartable.close();
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
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, unreachableAddress());
    properties.put(
        ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(KafkaFixture.MAX_BLOCK.toMillis()));
    return KafkaTransport.builder().properties(properties).build();
  }

  @Override
  protected String unreachableAddress() {
    return "127.0.0.1:" + closedPort;
  }

  @Override
  protected String malformedDestination() {
    return "orders created!";
  }

  /** A missing topic is no metadata within the timeout: the topic may yet be created. */
  @Override
  protected boolean rejectsUnroutableForGood() {
    return false;
  }

  /** RecordTooLargeException: the topic's max.message.bytes does not change by itself. */
  @Override
  protected boolean rejectsOversizedBodiesForGood() {
    return true;
  }

  @Test
  void aRecordWithoutAKeyOnACompactedTopicIsRejectedForGood() throws Exception {
    Transport transport = open(shared.openTransport());
    String topic = shared.createTopic(1, Map.of("cleanup.policy", "compact"));
    OutgoingMessage keyed =
        new OutgoingMessage(UUID.randomUUID(), "t", Map.of(), "a".getBytes(UTF_8), "k-1", null);
    OutgoingMessage unkeyed =
        new OutgoingMessage(UUID.randomUUID(), "t", Map.of(), "b".getBytes(UTF_8), null, null);

    List<SendResult> results =
        transport.send(new TransportBatch(topic, List.of(keyed, unkeyed), TIMEOUT));

    assertThat(results.get(1).isPermanent()).as("result %s", results.get(1)).isTrue();
    assertThat(results.get(1).error()).contains("InvalidRecordException");
    // The broker refuses the whole produce request it came in; a record sharing it is retried.
    assertThat(results.get(0).isPermanent()).as("result %s", results.get(0)).isFalse();
    if (!results.get(0).isAccepted()) {
      assertThat(transport.send(new TransportBatch(topic, List.of(keyed), TIMEOUT)))
          .singleElement()
          .satisfies(r -> assertThat(r.isAccepted()).as("retried alone: %s", r).isTrue());
    }
  }

  @Test
  void aRecordOverTheProducersMaxRequestSizeIsRejectedForGoodAlone() throws Exception {
    Transport transport = open(shared.openTransport());
    String topic = shared.createDestination();
    List<OutgoingMessage> batch = new ArrayList<>(messages(3));
    OutgoingMessage plain = batch.get(1);
    batch.set(
        1,
        new OutgoingMessage(
            plain.messageId(),
            plain.messageType(),
            Map.of(),
            new byte[2 * 1024 * 1024],
            null,
            null));

    List<SendResult> results = transport.send(new TransportBatch(topic, batch, TIMEOUT));

    assertThat(results).hasSize(3);
    assertThat(results.get(1).isPermanent()).as("result %s", results.get(1)).isTrue();
    assertThat(results.get(1).error())
        .contains("RecordTooLargeException")
        .contains("max.request.size");
    assertThat(results.get(0).isAccepted()).isTrue();
    if (transport.preservesBatchOrder()) {
      assertThat(results.get(2).isAccepted() || results.get(2).isPermanent()).isFalse();
    } else {
      assertThat(results.get(2).isAccepted()).isTrue();
    }
    int delivered = transport.preservesBatchOrder() ? 1 : 2;
    assertThat(shared.records(topic, r -> r.size() >= 3, Duration.ofSeconds(3))).hasSize(delivered);
  }

  @Test
  void theRecordKeyIsTheOrderingKeyAndNullWhenUnordered() throws Exception {
    Transport transport = open(shared.openTransport());
    String topic = shared.createDestination();
    OutgoingMessage ordered =
        new OutgoingMessage(
            UUID.randomUUID(), "t", Map.of(), "a".getBytes(UTF_8), "customer-42", null);
    OutgoingMessage unordered =
        new OutgoingMessage(UUID.randomUUID(), "t", Map.of(), "b".getBytes(UTF_8), null, null);

    List<SendResult> results =
        transport.send(new TransportBatch(topic, List.of(ordered, unordered), TIMEOUT));

    assertThat(results).allMatch(SendResult::isAccepted);
    List<ConsumerRecord<String, byte[]>> records =
        shared.records(topic, r -> r.size() >= 2, TIMEOUT);
    assertThat(records).extracting(ConsumerRecord::key).containsExactly("customer-42", null);
  }

  @Test
  void recordsOfOneKeyKeepBatchOrderAcrossPartitions() throws Exception {
    Transport transport = open(shared.openTransport());
    String topic = shared.createTopic(3, Map.of());
    List<OutgoingMessage> batch = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      batch.add(
          new OutgoingMessage(
              UUID.randomUUID(), "t", Map.of(), ("m" + i).getBytes(UTF_8), "key-" + (i % 3), null));
    }

    List<SendResult> results = transport.send(new TransportBatch(topic, batch, TIMEOUT));

    assertThat(results).hasSize(60).allMatch(SendResult::isAccepted);
    List<ConsumerRecord<String, byte[]>> records =
        shared.records(topic, r -> r.size() >= 60, TIMEOUT);
    for (int key = 0; key < 3; key++) {
      String wanted = "key-" + key;
      assertThat(
              records.stream()
                  .filter(r -> r.key().equals(wanted))
                  .map(r -> new String(r.value(), UTF_8))
                  .collect(Collectors.toList()))
          .as("records of %s in consumption order", wanted)
          .containsExactlyElementsOf(
              batch.stream()
                  .filter(m -> m.orderingKey().equals(wanted))
                  .map(m -> new String(m.body(), UTF_8))
                  .collect(Collectors.toList()));
    }
  }

  @Test
  void aBatchWaitingForMetadataNeverOutlastsItsTimeout() throws Exception {
    // Kafka's default max.block.ms is 60 s; the batch timeout must win.
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, unreachableAddress());
    Transport transport =
        open(
            KafkaTransport.builder()
                .properties(properties)
                .orderedBatches(orderedBatches())
                .build());
    Duration timeout = Duration.ofSeconds(1);

    long start = System.nanoTime();
    List<SendResult> results = transport.send(new TransportBatch("orders", messages(3), timeout));
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

    assertThat(elapsed).isLessThan(timeout.plusSeconds(1));
    assertThat(results).hasSize(3).noneMatch(SendResult::isAccepted);
    assertThat(results).as("no metadata is retried").noneMatch(SendResult::isPermanent);
    assertThat(results.get(0).error())
        .contains("no metadata for topic 'orders'")
        .contains(unreachableAddress());
  }
}
