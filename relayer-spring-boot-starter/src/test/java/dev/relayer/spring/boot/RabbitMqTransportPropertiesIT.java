package dev.relayer.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.TransportSends;
import dev.relayer.spring.boot.transport.RabbitMqTransportAutoConfiguration;
import dev.relayer.testkit.transport.SelfSignedCertificate;
import dev.relayer.testkit.transport.TcpProxy;
import dev.relayer.transport.rabbitmq.HangUpPort;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@code RabbitMqTransport} from {@code relayer.rabbitmq.*} delivers what a
 * {@code @Transactional} method enqueued to the real broker ({@code RELAYER_RABBITMQ_URI}),
 * connecting with Spring Boot's {@code spring.rabbitmq.*} unless {@code relayer.rabbitmq.uri} says
 * otherwise. For TLS, the broker is reached through a TLS-terminating proxy whose self-signed
 * certificate only a client given it trusts.
 */
class RabbitMqTransportPropertiesIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  private static RabbitMqFixture rabbit;
  private static SelfSignedCertificate certificate;
  private static TcpProxy tls;

  @BeforeAll
  static void broker(@TempDir Path dir) throws Exception {
    rabbit = RabbitMqFixture.direct(false);
    certificate = SelfSignedCertificate.create(dir);
    tls =
        TcpProxy.startTls(
            certificate.serverContext(),
            URI.create(RabbitMqFixture.brokerUri()).getHost(),
            brokerPort());
  }

  @AfterAll
  static void closeBroker() throws Exception {
    try {
      if (tls != null) {
        tls.close();
      }
    } finally {
      rabbit.close();
    }
  }

  private static ApplicationContextRunner runner() {
    return fixture
        .runner()
        .withInitializer(StarterFixture.WITHOUT_ENVIRONMENT_VARIABLES)
        .withConfiguration(
            AutoConfigurations.of(
                SslAutoConfiguration.class,
                RabbitAutoConfiguration.class,
                RabbitMqTransportAutoConfiguration.class))
        .withUserConfiguration(PlacedOrders.Config.class)
        .withPropertyValues(StarterFixture.SWEEPER_OUT_OF_THE_WAY);
  }

  /** {@code spring.rabbitmq.*} naming the broker of {@code RELAYER_RABBITMQ_URI}. */
  private static String[] springRabbitmq(int port) {
    URI uri = URI.create(RabbitMqFixture.brokerUri());
    return springRabbitmq("spring.rabbitmq.host=" + uri.getHost(), "spring.rabbitmq.port=" + port);
  }

  /** {@code where} and the credentials of {@code RELAYER_RABBITMQ_URI}. */
  private static String[] springRabbitmq(String... where) {
    URI uri = URI.create(RabbitMqFixture.brokerUri());
    String[] user =
        uri.getUserInfo() == null
            ? new String[] {"guest", "guest"}
            : uri.getUserInfo().split(":", 2);
    String[] properties = Arrays.copyOf(where, where.length + 2);
    properties[where.length] = "spring.rabbitmq.username=" + user[0];
    properties[where.length + 1] = "spring.rabbitmq.password=" + user[1];
    return properties;
  }

  /** The broker of {@code RELAYER_RABBITMQ_URI} as {@code host:port}. */
  private static String brokerAddress() {
    return URI.create(RabbitMqFixture.brokerUri()).getHost() + ":" + brokerPort();
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
  void messageArrivesThroughTheNextOfSpringRabbitmqAddressesAfterTheFirstHangsUp()
      throws Exception {
    String destination = rabbit.createDestination();
    try (HangUpPort down = HangUpPort.start()) {
      runner()
          .withPropertyValues(
              springRabbitmq("spring.rabbitmq.addresses=" + down.address() + "," + brokerAddress()))
          .withPropertyValues("relayer.rabbitmq.enabled=true")
          .run(
              context -> {
                fixture.placedOrderArrives(
                    context, rabbit, "rabbitmq", destination, "order-4", Duration.ofSeconds(10));
              });
      assertThat(down.connections()).as("connections to the first address").isPositive();
    }
  }

  @Test
  void relayerAddressesReplaceTheHostOfTheRelayerUri() throws Exception {
    String destination = rabbit.createDestination();
    URI broker = URI.create(RabbitMqFixture.brokerUri());
    String closedHost =
        new URI(
                broker.getScheme(),
                broker.getRawUserInfo(),
                broker.getHost(),
                closedPort(),
                broker.getRawPath(),
                null,
                null)
            .toString();
    try (HangUpPort down = HangUpPort.start()) {
      runner()
          .withPropertyValues(
              "relayer.rabbitmq.enabled=true",
              "relayer.rabbitmq.uri=" + closedHost,
              "relayer.rabbitmq.addresses=" + down.address() + "," + brokerAddress())
          .run(
              context -> {
                fixture.placedOrderArrives(
                    context, rabbit, "rabbitmq", destination, "order-5", Duration.ofSeconds(10));
              });
      assertThat(down.connections()).as("connections to the first address").isPositive();
    }
  }

  @Test
  void badRelayerAddressesFailStartupNamingEach() {
    runner()
        .withPropertyValues(
            "relayer.rabbitmq.enabled=true",
            "relayer.rabbitmq.uri=" + RabbitMqFixture.brokerUri(),
            "relayer.rabbitmq.addresses=node-1:5672,node-2:70000,amqp://node-3")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        "relayer.rabbitmq.addresses: 'node-2:70000' has port '70000'")
                    .hasMessageContaining(
                        "relayer.rabbitmq.addresses: 'amqp://node-3' is not host[:port]"));
  }

  @Test
  void messageArrivesOverTlsWithTheSslBundleOfSpringRabbitmqSettings() throws Exception {
    String destination = rabbit.createDestination();
    runner()
        .withPropertyValues(springRabbitmq("spring.rabbitmq.addresses=127.0.0.1:" + tls.port()))
        .withPropertyValues(
            "spring.ssl.bundle.pem.broker.truststore.certificate=file:" + certificate.certificate(),
            "spring.rabbitmq.ssl.enabled=true",
            "spring.rabbitmq.ssl.bundle=broker",
            "relayer.rabbitmq.enabled=true")
        .run(
            context -> {
              fixture.placedOrderArrives(
                  context, rabbit, "rabbitmq", destination, "order-6", Duration.ofSeconds(10));
            });
  }

  @Test
  void messageArrivesOverTlsWithTheTrustStoreOfSpringRabbitmqSslSettings() throws Exception {
    String destination = rabbit.createDestination();
    runner()
        .withPropertyValues(springRabbitmq("spring.rabbitmq.addresses=127.0.0.1:" + tls.port()))
        .withPropertyValues(
            "spring.rabbitmq.ssl.enabled=true",
            "spring.rabbitmq.ssl.trust-store=file:" + certificate.truststore(),
            "spring.rabbitmq.ssl.trust-store-type=PKCS12",
            "spring.rabbitmq.ssl.trust-store-password=" + SelfSignedCertificate.PASSWORD,
            "relayer.rabbitmq.enabled=true")
        .run(
            context -> {
              fixture.placedOrderArrives(
                  context, rabbit, "rabbitmq", destination, "order-7", Duration.ofSeconds(10));
            });
  }

  @Test
  void withoutTrustingTheCertificateTheTlsConnectionFails() throws Exception {
    runner()
        .withPropertyValues(springRabbitmq("spring.rabbitmq.addresses=127.0.0.1:" + tls.port()))
        .withPropertyValues(
            "spring.rabbitmq.ssl.enabled=true",
            "relayer.rabbitmq.enabled=true",
            "relayer.rabbitmq.connect-timeout=2s",
            "relayer.dispatch.send-timeout=3s")
        .run(
            context -> {
              context.getBean(PlacedOrders.class).place("rabbitmq", "/nowhere", "order-8");

              Relayer relayer = context.getBean(Relayer.class);
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> sends(relayer) != null && sends(relayer).failed() > 0);
              assertThat(sends(relayer).lastError())
                  .hasValueSatisfying(
                      error ->
                          assertThat(error)
                              .contains("cannot connect")
                              .contains("SSLHandshakeException"));
              assertThat(fixture.outboxRows()).isEqualTo(1);
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
