package dev.relayer.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.dispatch.Relayer;
import dev.relayer.spring.boot.transport.NatsTransportAutoConfiguration;
import dev.relayer.transport.nats.NatsFixture;
import dev.relayer.transport.nats.NatsTransport;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@code NatsTransport} from {@code relayer.nats.*} delivers what a {@code @Transactional} method
 * enqueued to the real server ({@code RELAYER_NATS_URL}), into a JetStream stream.
 */
class NatsTransportPropertiesIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  private static NatsFixture nats;

  @BeforeAll
  static void server() throws Exception {
    nats = NatsFixture.shared();
  }

  @AfterAll
  static void closeServer() throws Exception {
    nats.close();
  }

  private static ApplicationContextRunner runner() {
    return fixture
        .runner()
        .withInitializer(StarterFixture.WITHOUT_ENVIRONMENT_VARIABLES)
        .withConfiguration(AutoConfigurations.of(NatsTransportAutoConfiguration.class))
        .withUserConfiguration(PlacedOrders.Config.class)
        .withPropertyValues(StarterFixture.SWEEPER_OUT_OF_THE_WAY);
  }

  @Test
  void messageEnqueuedInTransactionalMethodArrivesAtTheServer() throws Exception {
    String subject = nats.createDestination();
    runner()
        .withPropertyValues(
            "relayer.nats.enabled=true",
            "relayer.nats.url=" + nats.url(),
            "relayer.nats.ordered-batches=true",
            "relayer.nats.reconnect-wait=250ms")
        .run(
            context -> {
              assertThat(context).hasSingleBean(NatsTransport.class);
              assertThat(context.getBean(NatsTransport.class).preservesBatchOrder()).isTrue();
              fixture.placedOrderArrives(
                  context, nats, "nats", subject, "order-1", Duration.ofSeconds(10));
            });
  }

  @Test
  void transportIsNotCreatedUnlessEnabled() {
    runner()
        .withPropertyValues("relayer.nats.url=" + nats.url())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(NatsTransport.class);
            });
  }

  @Test
  void transportIsNotCreatedWhenRelayerIsTurnedOff() {
    fixture
        .runner()
        .withInitializer(StarterFixture.WITHOUT_ENVIRONMENT_VARIABLES)
        .withConfiguration(AutoConfigurations.of(NatsTransportAutoConfiguration.class))
        .withPropertyValues(
            "relayer.enabled=false", "relayer.nats.enabled=true", "relayer.nats.url=" + nats.url())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(Relayer.class);
              assertThat(context).doesNotHaveBean(NatsTransport.class);
            });
  }

  @Test
  void missingUrlFailsStartupNamingIt() {
    runner()
        .withPropertyValues("relayer.nats.enabled=true")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("relayer.nats.url is required"));
  }

  @Test
  void invalidDurationFailsStartupNamingTheProperty() {
    runner()
        .withPropertyValues(
            "relayer.nats.enabled=true",
            "relayer.nats.url=" + nats.url(),
            "relayer.nats.connect-timeout=0s")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        "relayer.nats.connect-timeout must be a positive duration"));
  }
}
