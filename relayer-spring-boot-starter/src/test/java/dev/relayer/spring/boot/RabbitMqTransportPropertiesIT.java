package dev.relayer.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.TransportSends;
import dev.relayer.spring.boot.transport.RabbitMqTransportAutoConfiguration;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@code RabbitMqTransport} from {@code relayer.rabbitmq.*} delivers what a
 * {@code @Transactional} method enqueued to the real broker ({@code RELAYER_RABBITMQ_URI}),
 * connecting with Spring Boot's {@code spring.rabbitmq.*} unless {@code relayer.rabbitmq.uri} says
 * otherwise.
 */
class RabbitMqTransportPropertiesIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  private static RabbitMqFixture rabbit;

  @BeforeAll
  static void broker() throws Exception {
    rabbit = RabbitMqFixture.direct(false);
  }

  @AfterAll
  static void closeBroker() throws Exception {
    rabbit.close();
  }

  private static ApplicationContextRunner runner() {
    return fixture
        .runner()
        .withInitializer(StarterFixture.WITHOUT_ENVIRONMENT_VARIABLES)
        .withConfiguration(
            AutoConfigurations.of(
                RabbitAutoConfiguration.class, RabbitMqTransportAutoConfiguration.class))
        .withUserConfiguration(PlacedOrders.Config.class)
        .withPropertyValues(StarterFixture.SWEEPER_OUT_OF_THE_WAY);
  }

  /** {@code spring.rabbitmq.*} naming the broker of {@code RELAYER_RABBITMQ_URI}. */
  private static String[] springRabbitmq(int port) {
    URI uri = URI.create(RabbitMqFixture.brokerUri());
    String[] user =
        uri.getUserInfo() == null
            ? new String[] {"guest", "guest"}
            : uri.getUserInfo().split(":", 2);
    return new String[] {
      "spring.rabbitmq.host=" + uri.getHost(),
      "spring.rabbitmq.port=" + port,
      "spring.rabbitmq.username=" + user[0],
      "spring.rabbitmq.password=" + user[1]
    };
  }

  private static int brokerPort() {
    int port = URI.create(RabbitMqFixture.brokerUri()).getPort();
    return port > 0 ? port : 5672;
  }

  @Test
  void messageEnqueuedInTransactionalMethodArrivesAtTheBrokerOfSpringRabbitmqSettings()
      throws Exception {
    String destination = rabbit.createDestination();
    runner()
        .withPropertyValues(springRabbitmq(brokerPort()))
        .withPropertyValues("relayer.rabbitmq.enabled=true")
        .run(
            context -> {
              assertThat(context).hasSingleBean(RabbitMqTransport.class);
              fixture.placedOrderArrives(
                  context, rabbit, "rabbitmq", destination, "order-1", Duration.ofSeconds(10));
            });
  }

  @Test
  void transportConnectsWhereSpringRabbitmqSettingsPoint() throws Exception {
    int closed = closedPort();
    runner()
        .withPropertyValues(springRabbitmq(closed))
        .withPropertyValues(
            "relayer.rabbitmq.enabled=true",
            "relayer.rabbitmq.connect-timeout=1s",
            "relayer.dispatch.send-timeout=2s")
        .run(
            context -> {
              context.getBean(PlacedOrders.class).place("rabbitmq", "/nowhere", "order-2");

              Relayer relayer = context.getBean(Relayer.class);
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> sends(relayer) != null && sends(relayer).failed() > 0);
              assertThat(sends(relayer).lastError())
                  .hasValueSatisfying(error -> assertThat(error).contains(":" + closed));
              assertThat(fixture.outboxRows()).isEqualTo(1);
            });
  }

  @Test
  void relayerUriIsUsedInsteadOfSpringRabbitmqSettings() throws Exception {
    String destination = rabbit.createDestination();
    runner()
        .withPropertyValues(springRabbitmq(closedPort()))
        .withPropertyValues(
            "relayer.rabbitmq.enabled=true",
            "relayer.rabbitmq.name=events",
            "relayer.rabbitmq.uri=" + RabbitMqFixture.brokerUri())
        .run(
            context -> {
              fixture.placedOrderArrives(
                  context, rabbit, "events", destination, "order-3", Duration.ofSeconds(10));
            });
  }

  @Test
  void transportIsNotCreatedUnlessEnabled() {
    runner()
        .withPropertyValues("relayer.rabbitmq.uri=" + RabbitMqFixture.brokerUri())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(RabbitMqTransport.class);
            });
  }

  @Test
  void withoutUriOrSpringConnectionFactoryStartupFailsNamingTheUri() {
    fixture
        .runner()
        .withInitializer(StarterFixture.WITHOUT_ENVIRONMENT_VARIABLES)
        .withConfiguration(AutoConfigurations.of(RabbitMqTransportAutoConfiguration.class))
        .withPropertyValues("relayer.rabbitmq.enabled=true")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("relayer.rabbitmq.uri is required"));
  }

  @Test
  void invalidValueFailsStartupNamingTheProperty() {
    runner()
        .withPropertyValues(
            "relayer.rabbitmq.enabled=true",
            "relayer.rabbitmq.uri=" + RabbitMqFixture.brokerUri(),
            "relayer.rabbitmq.max-batch-size=0")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        "relayer.rabbitmq.max-batch-size must be between 1 and 10000, was 0"));
  }

  private static TransportSends sends(Relayer relayer) {
    return relayer.health().transports().get("rabbitmq");
  }

  /** A loopback port that nothing listens on. */
  static int closedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
