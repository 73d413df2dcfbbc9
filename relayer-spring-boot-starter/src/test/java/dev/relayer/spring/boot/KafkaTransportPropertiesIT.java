package dev.relayer.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.spring.boot.transport.KafkaTransportAutoConfiguration;
import dev.relayer.transport.kafka.KafkaBrokerProcess;
import dev.relayer.transport.kafka.KafkaFixture;
import dev.relayer.transport.kafka.KafkaTransport;
import java.time.Duration;
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
              fixture.placedOrderArrives(
                  context, kafka, "kafka", topic, "order-1", Duration.ofSeconds(20));
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
              fixture.placedOrderArrives(
                  context, kafka, "events", topic, "order-2", Duration.ofSeconds(20));
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
