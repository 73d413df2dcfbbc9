package dev.relayer.spring.boot;

import static dev.relayer.spring.boot.StarterFixture.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.Relayer;
import dev.relayer.micrometer.RelayerMetrics;
import dev.relayer.transport.memory.InMemoryTransport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/** The starter binds the Relayer's meters when the application has a {@code MeterRegistry}. */
class RelayerMetricsAutoConfigurationIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  private static ApplicationContextRunner runner() {
    return fixture
        .runner()
        .withConfiguration(AutoConfigurations.of(RelayerMetricsAutoConfiguration.class))
        .withUserConfiguration(StarterFixture.MemoryTransport.class);
  }

  @Test
  void withAMeterRegistryTheRelayersSendsAreCountedAndItsGaugesRefreshed() {
    runner()
        .withUserConfiguration(Registry.class)
        .withPropertyValues("relayer.metrics.gauge-refresh=100ms")
        .run(
            context -> {
              assertThat(context).hasSingleBean(RelayerMetrics.class);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              InMemoryTransport memory = context.getBean(InMemoryTransport.class);
              Relayer relayer = context.getBean(Relayer.class);
              DSLContext dsl = context.getBean(DSLContext.class);
              context
                  .getBean(TransactionTemplate.class)
                  .executeWithoutResult(s -> relayer.store().enqueue(dsl, message("metered")));
              await().atMost(Duration.ofSeconds(5)).until(() -> memory.deliveries().size() == 1);

              await()
                  .atMost(Duration.ofSeconds(5))
                  .until(
                      () ->
                          registry
                                  .get("relayer.outbox.sent")
                                  .tags("store", "public.relayer_", "transport", "memory")
                                  .counter()
                                  .count()
                              == 1);
              assertThat(registry.get("relayer.outbox.enqueued").counter().count()).isEqualTo(1);
              // The refresh runs on its own thread while the context runs.
              await()
                  .atMost(Duration.ofSeconds(5))
                  .until(
                      () ->
                          registry
                                  .get("relayer.lease.holders")
                                  .tags("kind", "sweeper", "holder", "this")
                                  .gauge()
                                  .value()
                              == 1);
              assertThat(context.getBean(RelayerMetrics.class).gaugeRefresh())
                  .isEqualTo(Duration.ofMillis(100));
            });
  }

  @Test
  void theStoreTagComesFromTheProperty() {
    runner()
        .withUserConfiguration(Registry.class)
        .withPropertyValues("relayer.metrics.store-tag=orders")
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(
                      Search.in(registry)
                          .name("relayer.outbox.eligible")
                          .gauge()
                          .getId()
                          .getTag("store"))
                  .isEqualTo("orders");
            });
  }

  @Test
  void closingTheContextRemovesTheMeters() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    runner()
        .withBean(MeterRegistry.class, () -> registry)
        .run(context -> assertThat(registry.find("relayer.outbox.eligible").gauge()).isNotNull());

    assertThat(registry.find("relayer.outbox.eligible").gauge()).isNull();
    assertThat(registry.getMeters()).isEmpty();
  }

  @Test
  void withoutAMeterRegistryNoMetersAreBound() {
    runner()
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(Relayer.class);
              assertThat(context).doesNotHaveBean(RelayerMetrics.class);
            });
  }

  @Test
  void metricsTurnedOffAreNotBound() {
    runner()
        .withUserConfiguration(Registry.class)
        .withPropertyValues("relayer.metrics.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(RelayerMetrics.class);
              assertThat(context.getBean(MeterRegistry.class).find("relayer.outbox.sent").meters())
                  .isEmpty();
            });
  }

  @Test
  void withoutRelayerMicrometerOnTheClassPathNothingIsBound() {
    runner()
        .withUserConfiguration(Registry.class)
        .withClassLoader(new FilteredClassLoader(RelayerMetrics.class))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(RelayerMetricsLifecycle.class);
            });
  }

  @Test
  void aGaugeRefreshOfZeroFailsStartUpNamingTheProperty() {
    runner()
        .withUserConfiguration(Registry.class)
        .withPropertyValues("relayer.metrics.gauge-refresh=0s")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .rootCause()
                  .isInstanceOf(InvalidInputException.class)
                  .hasMessageContaining("relayer.metrics.gauge-refresh must be positive");
            });
  }

  @Test
  void anApplicationsOwnRelayerMetricsIsKept() {
    runner()
        .withUserConfiguration(Registry.class, OwnMetrics.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(RelayerMetrics.class);
              assertThat(context.getBean(RelayerMetrics.class).store()).isEqualTo("mine");
              assertThat(context).hasSingleBean(RelayerMetricsLifecycle.class);
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class Registry {
    @Bean
    SimpleMeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnMetrics {
    @Bean
    RelayerMetrics relayerMetrics(Relayer relayer, MeterRegistry registry) {
      return RelayerMetrics.builder(relayer, registry).storeTag("mine").build();
    }
  }
}
