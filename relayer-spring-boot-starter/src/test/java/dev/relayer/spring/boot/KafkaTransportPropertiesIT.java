package dev.relayer.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.spring.boot.transport.KafkaTransportAutoConfiguration;
import dev.relayer.testkit.transport.ConsumedMessage;
import dev.relayer.transport.kafka.KafkaBrokerProcess;
import dev.relayer.transport.kafka.KafkaFixture;
import dev.relayer.transport.kafka.KafkaTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@code KafkaTransport} from {@code relayer.kafka.*} delivers what a {@code @Transactional}
 * method enqueued to a real single-node KRaft broker (a child process of this test), with Spring
 * Boot's {@code spring.kafka.*} producer settings unless {@code relayer.kafka.bootstrap-servers}
 * says otherwise.
 */
class KafkaTransportPropertiesIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  private static KafkaBrokerProcess broker;
  private static KafkaFixture kafka;

  @BeforeAll
  static void broker() throws Exception {
    broker = KafkaBrokerProcess.start();
    kafka = KafkaFixture.privateBroker(broker);
  }

  @AfterAll
  static void closeBroker() throws Exception {
    try {
      if (kafka != null) {
        kafka.close();
      }
    } finally {
      if (broker != null) {
        broker.close();
      }
    }
  }

  private static ApplicationContextRunner runner() {
    return fixture
        .runner()
        .withInitializer(StarterFixture.WITHOUT_ENVIRONMENT_VARIABLES)
        .withConfiguration(
            AutoConfigurations.of(
                KafkaAutoConfiguration.class, KafkaTransportAutoConfiguration.class))
        .withUserConfiguration(PlacedOrders.Config.class)
        .withPropertyValues(
            StarterFixture.SWEEPER_OUT_OF_THE_WAY,
            "relayer.kafka.properties.max.block.ms=5000",
            "relayer.dispatch.send-timeout=10s");
  }

  @Test
  void messageEnqueuedInTransactionalMethodArrivesAtTheClusterOfSpringKafkaSettings()
      throws Exception {
    String topic = kafka.createDestination();
    runner()
        .withPropertyValues(
            "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "relayer.kafka.enabled=true")
        .run(
            context -> {
              assertThat(context).hasSingleBean(KafkaTransport.class);
              context.getBean(PlacedOrders.class).place("kafka", topic, "order-1");

              List<ConsumedMessage> received =
                  kafka.consumeUntil(topic, r -> !r.isEmpty(), Duration.ofSeconds(20));

              assertThat(received).hasSize(1);
              assertThat(received.get(0).messageType()).isEqualTo("OrderPlaced");
              assertThat(new String(received.get(0).body(), StandardCharsets.UTF_8))
                  .isEqualTo("order-1");
              await().atMost(Duration.ofSeconds(5)).until(() -> fixture.outboxRows() == 0);
            });
  }

  @Test
  void relayerBootstrapServersAreUsedInsteadOfSpringKafkaSettings() throws Exception {
    String topic = kafka.createDestination();
    runner()
        .withPropertyValues(
            "spring.kafka.bootstrap-servers=127.0.0.1:"
                + RabbitMqTransportPropertiesIT.closedPort(),
            "relayer.kafka.enabled=true",
            "relayer.kafka.name=events",
            "relayer.kafka.bootstrap-servers=" + kafka.bootstrapServers())
        .run(
            context -> {
              context.getBean(PlacedOrders.class).place("events", topic, "order-2");

              List<ConsumedMessage> received =
                  kafka.consumeUntil(topic, r -> !r.isEmpty(), Duration.ofSeconds(20));

              assertThat(received).hasSize(1);
              assertThat(new String(received.get(0).body(), StandardCharsets.UTF_8))
                  .isEqualTo("order-2");
            });
  }

  @Test
  void springKafkaProducerSettingsReachTheTransport() {
    runner()
        .withPropertyValues(
            "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "spring.kafka.producer.acks=1",
            "relayer.kafka.enabled=true")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        "relayer.kafka.properties: acks must be all or -1, was 1"));
  }

  @Test
  void withoutBootstrapServersOrSpringKafkaStartupFailsNamingThem() {
    fixture
        .runner()
        .withInitializer(StarterFixture.WITHOUT_ENVIRONMENT_VARIABLES)
        .withConfiguration(AutoConfigurations.of(KafkaTransportAutoConfiguration.class))
        .withPropertyValues("relayer.kafka.enabled=true")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("relayer.kafka.bootstrap-servers is required"));
  }
}
