package dev.relayer.spring.boot;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.inbox.IncomingMessage;
import dev.relayer.inbox.kafka.KafkaInbox;
import dev.relayer.spring.boot.inbox.InboxGuarded;
import dev.relayer.spring.boot.inbox.RelayerInboxAutoConfiguration;
import dev.relayer.transport.kafka.KafkaBrokerProcess;
import dev.relayer.transport.kafka.KafkaFixture;
import dev.relayer.transport.kafka.KafkaTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;

/**
 * An {@link InboxGuarded} {@code @KafkaListener} on real Kafka records, written by Relayer's Kafka
 * transport to a private single-node KRaft broker: Spring Boot's listener container (offsets
 * committed after the listener returns, failures sought back and retried by its error handler), the
 * application's {@code DSLContext} and its Spring transactions.
 */
class InboxGuardedKafkaListenerIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  private static KafkaBrokerProcess broker;
  private static KafkaFixture kafka;
  private static KafkaTransport transport;

  @BeforeAll
  static void start() throws Exception {
    broker = KafkaBrokerProcess.start();
    kafka = KafkaFixture.privateBroker(broker);
    transport = KafkaTransport.builder().properties(kafka.producerProperties()).build();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      transport.close();
      kafka.close();
    } finally {
      broker.close();
    }
  }

  private ApplicationContextRunner runner(String topic, String group) {
    fixture.dsl.execute(
        "create table if not exists billed (message_id uuid primary key, message_type text not"
            + " null, tenant_id text)");
    return fixture
        .runner()
        .withInitializer(StarterFixture.WITHOUT_ENVIRONMENT_VARIABLES)
        .withConfiguration(
            AutoConfigurations.of(
                KafkaAutoConfiguration.class, RelayerInboxAutoConfiguration.class))
        .withUserConfiguration(BillingConfig.class)
        .withPropertyValues(
            StarterFixture.SWEEPER_OUT_OF_THE_WAY,
            "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "spring.kafka.consumer.group-id=" + group,
            "spring.kafka.consumer.auto-offset-reset=earliest",
            "spring.kafka.consumer.key-deserializer=" + StringDeserializer.class.getName(),
            "spring.kafka.consumer.value-deserializer=" + ByteArrayDeserializer.class.getName(),
            "test.topic=" + topic);
  }

  @Test
  void aSecondRecordOfTheSameMessageIdIsCommittedAndDroppedAndTheMethodRunsOnce() throws Exception {
    String topic = kafka.createTopic(1, Map.of());
    String group = "billing-" + UUID.randomUUID();
    OutgoingMessage message = message("acme");

    runner(topic, group)
        .run(
            context -> {
              BillingLedger ledger = context.getBean(BillingLedger.class);
              publish(topic, message);
              publish(topic, message); // the sweeper's replay: a second record, same message id
              await().atMost(Duration.ofSeconds(30)).until(() -> committed(topic, group) == 2);
              assertThat(ledger.calls).hasSize(1);
              assertThat(ledger.calls.get(0).tenantId()).isEqualTo("acme");
              assertThat(ledger.calls.get(0).messageType()).isEqualTo("OrderPlaced");
            });

    assertThat(billedRows(message.messageId())).isEqualTo(1);
    assertThat(inboxRows("billing", message.messageId())).isEqualTo(1);
  }

  @Test
  void aFailureRollsBackTheInboxRowAndTheWorkAndTheRetriedRecordIsHandledOnce() throws Exception {
    String topic = kafka.createTopic(1, Map.of());
    String group = "billing-" + UUID.randomUUID();
    OutgoingMessage message = message(null);

    runner(topic, group)
        .run(
            context -> {
              BillingLedger ledger = context.getBean(BillingLedger.class);
              ledger.failNext.set(1);
              publish(topic, message);
              await().atMost(Duration.ofSeconds(30)).until(() -> committed(topic, group) == 1);
              assertThat(ledger.calls).hasSize(2);
            });

    // The failed call's insert rolled back with the inbox row: the record was read again, not
    // taken for a duplicate, and the second call could insert again.
    assertThat(billedRows(message.messageId())).isEqualTo(1);
    assertThat(inboxRows("billing", message.messageId())).isEqualTo(1);
  }

  // ---------------------------------------------------------------------------------------------

  /** The application's listener: bills each order in the guard's transaction. */
  static class Billing {

    private final DSLContext dsl;
    private final BillingLedger ledger;

    Billing(DSLContext dsl, BillingLedger ledger) {
      this.dsl = dsl;
      this.ledger = ledger;
    }

    @KafkaListener(topics = "${test.topic}")
    @InboxGuarded("billing")
    public void bill(ConsumerRecord<String, byte[]> record) {
      IncomingMessage incoming = KafkaInbox.read(record);
      ledger.bill(dsl, incoming);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class BillingConfig {
    @Bean
    BillingLedger ledger() {
      return new BillingLedger();
    }

    @Bean
    Billing billing(DSLContext dsl, BillingLedger ledger) {
      return new Billing(dsl, ledger);
    }
  }

  // ---------------------------------------------------------------------------------------------

  private static OutgoingMessage message(@Nullable String tenant) {
    return new OutgoingMessage(
        UUID.randomUUID(),
        "OrderPlaced",
        Map.of(),
        "{\"orderId\":42}".getBytes(UTF_8),
        null,
        tenant);
  }

  private static void publish(String topic, OutgoingMessage message) throws Exception {
    List<SendResult> results =
        transport.send(new TransportBatch(topic, List.of(message), Duration.ofSeconds(20)));
    assertThat(results).singleElement().matches(SendResult::isAccepted, "accepted");
  }

  /** The group's committed offset of partition 0, or -1 before its first commit. */
  private static long committed(String topic, String group) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(properties, new StringDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition partition = new TopicPartition(topic, 0);
      OffsetAndMetadata offset = consumer.committed(Set.of(partition)).get(partition);
      return offset == null ? -1 : offset.offset();
    }
  }

  private static int inboxRows(String consumer, UUID messageId) {
    return fixture.dsl.fetchCount(
        DSL.table(DSL.name("public", "relayer_inbox")),
        DSL.field(DSL.name("consumer"), String.class)
            .eq(consumer)
            .and(DSL.field(DSL.name("message_id"), UUID.class).eq(messageId)));
  }

  private static int billedRows(UUID messageId) {
    return fixture.dsl.fetchCount(
        DSL.table(DSL.name("billed")), DSL.field(DSL.name("message_id"), UUID.class).eq(messageId));
  }
}
