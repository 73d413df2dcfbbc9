package dev.relayer.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.Retention;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * {@code relayer.*} binds with Spring's relaxed names and duration forms, reaches the Relayer, and
 * fails start-up naming each invalid property.
 */
class RelayerPropertiesIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  @Test
  void kebabCasePropertiesReachTheOptions() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues(
            "relayer.lane-count=8",
            "relayer.owner=orders-1",
            "relayer.dispatch.max-attempts=3",
            "relayer.dispatch.claim-batch-size=50",
            "relayer.maintenance.recovery-delay=45s",
            "relayer.maintenance.dead-retention=infinite",
            "relayer.maintenance.inbox-retention=3d",
            "relayer.maintenance.idempotency-key-retention=36h",
            "relayer.maintenance.cleanup-pause-factor=0.5",
            "relayer.lanes.poll-interval=250ms",
            "relayer.lanes.listen=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              RelayerProperties properties = context.getBean(RelayerProperties.class);
              Relayer relayer = context.getBean(Relayer.class);
              assertThat(relayer.store().options().laneCount()).isEqualTo(8);
              assertThat(relayer.owner()).isEqualTo("orders-1");
              assertThat(properties.dispatchOptions().maxAttempts()).isEqualTo(3);
              assertThat(properties.dispatchOptions().claimBatchSize()).isEqualTo(50);
              assertThat(properties.maintenanceOptions().recoveryDelay())
                  .isEqualTo(Duration.ofSeconds(45));
              assertThat(properties.maintenanceOptions().deadRetention())
                  .isEqualTo(Retention.infinite());
              assertThat(properties.maintenanceOptions().inboxRetention())
                  .isEqualTo(Retention.of(Duration.ofDays(3)));
              assertThat(properties.maintenanceOptions().idempotencyKeyRetention())
                  .isEqualTo(Retention.of(Duration.ofHours(36)));
              assertThat(properties.maintenanceOptions().cleanupPauseFactor()).isEqualTo(0.5);
              assertThat(properties.laneOptions().pollInterval()).isEqualTo(Duration.ofMillis(250));
              assertThat(properties.laneOptions().listen()).isFalse();
            });
  }

  @Test
  void environmentVariablesBindToTheSameProperties() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withInitializer(
            context ->
                context
                    .getEnvironment()
                    .getPropertySources()
                    .addFirst(
                        new SystemEnvironmentPropertySource(
                            StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                            Map.of(
                                "RELAYER_MAINTENANCE_RECOVERY_DELAY", "2m",
                                "RELAYER_DISPATCH_WORKERS", "3",
                                "RELAYER_LANE_COUNT", "4",
                                "RELAYER_LANES_KEYS_PER_PASS", "7"))))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              RelayerProperties properties = context.getBean(RelayerProperties.class);
              assertThat(properties.maintenanceOptions().recoveryDelay())
                  .isEqualTo(Duration.ofMinutes(2));
              assertThat(properties.dispatchOptions().workers()).isEqualTo(3);
              assertThat(properties.laneOptions().keysPerPass()).isEqualTo(7);
              assertThat(context.getBean(Relayer.class).store().options().laneCount()).isEqualTo(4);
            });
  }

  @Test
  void outOfRangeValuesFailStartUpNamingEveryProperty() {
    failsStartUp(
        List.of(
            "relayer.maintenance.recovery-delay=-5s",
            "relayer.dispatch.workers=0",
            "relayer.lanes.keys-per-pass=0",
            "relayer.lane-count=0"),
        "invalid relayer.* properties",
        "relayer.maintenance.recovery-delay must not be negative",
        "relayer.dispatch.workers must be between 1 and 64, was 0",
        "relayer.lanes.keys-per-pass must be between",
        "relayer.lane-count must be between 1 and 4096, was 0");
  }

  @Test
  void crossOptionRuleFailsStartUpNamingBothProperties() {
    failsStartUp(
        List.of("relayer.dispatch.send-timeout=30s", "relayer.dispatch.claim-duration=30s"),
        "relayer.dispatch.send-timeout",
        "relayer.dispatch.claim-duration");
  }

  @Test
  void unparsableValuesFailStartUpNamingTheProperty() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues("relayer.maintenance.batch-size=lots")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(causes(context.getStartupFailure()))
                  .contains(
                      "Failed to bind properties under 'relayer.maintenance.batch-size' to"
                          + " java.lang.Integer");
            });
    failsStartUp(
        List.of("relayer.maintenance.inbox-retention=forever"),
        "relayer.maintenance.inbox-retention 'forever' is not a duration or infinite");
  }

  @Test
  void partsTurnedOnWithoutDispatchFailStartUpNamingTheContradiction() {
    failsStartUp(
        List.of(
            "relayer.dispatch.enabled=false",
            "relayer.maintenance.enabled=true",
            "relayer.lanes.enabled=true"),
        "relayer.maintenance.enabled=true needs relayer.dispatch.enabled=true",
        "relayer.lanes.enabled=true needs relayer.dispatch.enabled=true");
  }

  @Test
  void healthThresholdsAreSetInPairs() {
    failsStartUp(
        List.of("relayer.health.degraded-at=5"),
        "relayer.health.degraded-at and relayer.health.unhealthy-at are set together");
  }

  @Test
  void aHealthRowLimitBelowUnhealthyAtIsRejectedByPropertyName() {
    failsStartUp(
        List.of("relayer.health.row-limit=500"),
        "relayer.health.row-limit=500 must not be below relayer.health.unhealthy-at=10000");
  }

  /** Starting with {@code properties} fails; the root cause's message contains each message. */
  private static void failsStartUp(List<String> properties, String... messages) {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues(properties.toArray(String[]::new))
        .run(
            context -> {
              assertThat(context).hasFailed();
              var root = assertThat(context.getStartupFailure()).rootCause();
              for (String message : messages) {
                root.hasMessageContaining(message);
              }
            });
  }

  /** The messages of {@code failure} and its causes, one a line. */
  private static String causes(Throwable failure) {
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    return messages.toString();
  }
}
