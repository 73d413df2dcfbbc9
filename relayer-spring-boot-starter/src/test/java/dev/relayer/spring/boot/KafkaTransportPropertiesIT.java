package dev.relayer.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.TransportSends;
import dev.relayer.spring.boot.transport.KafkaTransportAutoConfiguration;
import dev.relayer.testkit.transport.SelfSignedCertificate;
import dev.relayer.transport.kafka.KafkaBrokerProcess;
import dev.relayer.transport.kafka.KafkaFixture;
import dev.relayer.transport.kafka.KafkaTransport;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@code KafkaTransport} from {@code relayer.kafka.*} delivers what a {@code @Transactional}
 * method enqueued to a real single-node KRaft broker (a child process of this test), with Spring
 * Boot's {@code spring.kafka.*} producer settings unless {@code relayer.kafka.bootstrap-servers}
 * says otherwise. The broker also listens for TLS with a self-signed certificate that only an SSL
 * bundle made from it trusts.
 */
class KafkaTransportPropertiesIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  private static KafkaBrokerProcess broker;
  private static KafkaFixture kafka;

  @BeforeAll
  static void broker() throws Exception {
    broker = KafkaBrokerProcess.startWithTls();
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
                SslAutoConfiguration.class,
                KafkaAutoConfiguration.class,
                KafkaTransportAutoConfiguration.class))
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

  /** A PEM bundle {@code broker} trusting the broker's certificate. */
  private static String pemBundleTrustingTheBroker() {
    return "spring.ssl.bundle.pem.broker.truststore.certificate=file:"
        + broker.certificate().certificate();
  }

  @Test
  void messageArrivesOverTlsWithTheSslBundleOfSpringKafkaSettings() throws Exception {
    String topic = kafka.createDestination();
    runner()
        .withPropertyValues(
            pemBundleTrustingTheBroker(),
            "spring.kafka.bootstrap-servers=" + broker.tlsBootstrapServers(),
            "spring.kafka.security.protocol=SSL",
            "spring.kafka.ssl.bundle=broker",
            "relayer.kafka.enabled=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              fixture.placedOrderArrives(
                  context, kafka, "kafka", topic, "order-tls-1", Duration.ofSeconds(20));
            });
  }

  @Test
  void withoutAnSslBundleTheBrokersCertificateIsNotTrustedAndSendingFails() throws Exception {
    String topic = kafka.createDestination();
    runner()
        .withPropertyValues(
            pemBundleTrustingTheBroker(),
            "spring.kafka.bootstrap-servers=" + broker.tlsBootstrapServers(),
            "spring.kafka.security.protocol=SSL",
            "relayer.kafka.enabled=true")
        .run(
            context -> {
              context.getBean(PlacedOrders.class).place("kafka", topic, "order-tls-2");

              Relayer relayer = context.getBean(Relayer.class);
              await()
                  .atMost(Duration.ofSeconds(20))
                  .until(() -> sends(relayer) != null && sends(relayer).failed() > 0);
              assertThat(sends(relayer).succeeded()).isZero();
              assertThat(sends(relayer).lastError())
                  .hasValueSatisfying(error -> assertThat(error).contains("SSL handshake failed"));
              assertThat(fixture.outboxRows()).isEqualTo(1);
            });
    assertThat(kafka.consumeUntil(topic, r -> !r.isEmpty(), Duration.ofSeconds(2))).isEmpty();
  }

  @Test
  void relayerSslBundleIsUsedWithRelayerBootstrapServers() throws Exception {
    String topic = kafka.createDestination();
    runner()
        .withPropertyValues(
            "spring.ssl.bundle.jks.relayer.truststore.location=file:"
                + broker.certificate().truststore(),
            "spring.ssl.bundle.jks.relayer.truststore.type=PKCS12",
            "spring.ssl.bundle.jks.relayer.truststore.password=" + SelfSignedCertificate.PASSWORD,
            "relayer.kafka.enabled=true",
            "relayer.kafka.bootstrap-servers=" + broker.tlsBootstrapServers(),
            "relayer.kafka.ssl.bundle=relayer")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              fixture.placedOrderArrives(
                  context, kafka, "kafka", topic, "order-tls-3", Duration.ofSeconds(20));
            });
  }

  @Test
  void anUnknownRelayerSslBundleFailsStartupNamingIt() {
    runner()
        .withPropertyValues(
            "relayer.kafka.enabled=true",
            "relayer.kafka.bootstrap-servers=" + broker.tlsBootstrapServers(),
            "relayer.kafka.ssl.bundle=missing")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        "relayer.kafka.ssl.bundle: no SSL bundle 'missing' in spring.ssl.bundle.*"));
  }

  private static TransportSends sends(Relayer relayer) {
    return relayer.health().transports().get("kafka");
  }
}
