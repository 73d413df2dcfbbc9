package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class OptionsTest {

  @Test
  void maintenanceDefaultsFollowTheDesign() {
    MaintenanceOptions o = MaintenanceOptions.defaults();
    assertThat(o.batchSize()).isEqualTo(100);
    assertThat(o.recoveryDelay()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.sweepInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(o.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.claimDuration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.cleanupInterval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(o.deadRetention()).isEqualTo(Retention.of(Duration.ofDays(30)));
    assertThat(o.inboxRetention()).isEqualTo(Retention.of(Duration.ofDays(7)));
    assertThat(o.idempotencyKeyRetention()).isEqualTo(Retention.of(Duration.ofDays(7)));
  }

  @Test
  void cleanupHasItsOwnBatchSizeAndBudgetSeparateFromTheSweepersPage() {
    MaintenanceOptions defaults = MaintenanceOptions.defaults();
    assertThat(defaults.cleanupBatchSize()).isEqualTo(5000);
    assertThat(defaults.cleanupBudget()).isEqualTo(Duration.ofSeconds(5));
    MaintenanceOptions bound =
        MaintenanceOptions.fromMap(
            Map.of("cleanupBatchSize", "100000", "cleanupBudget", "500ms", "batchSize", "7"));
    assertThat(bound.cleanupBatchSize()).isEqualTo(100_000);
    assertThat(bound.cleanupBudget()).isEqualTo(Duration.ofMillis(500));
    assertThat(bound.batchSize()).isEqualTo(7);
    assertThat(MaintenanceOptions.builder().cleanupBatchSize(1).build().cleanupBatchSize())
        .isEqualTo(1);
    assertRejected(
        MaintenanceOptions.builder().cleanupBatchSize(0),
        "maintenance.cleanupBatchSize must be between 1 and 100000, was 0");
    assertRejected(
        MaintenanceOptions.builder().cleanupBatchSize(100_001), "maintenance.cleanupBatchSize");
    assertRejected(
        MaintenanceOptions.builder().cleanupBudget(Duration.ZERO),
        "maintenance.cleanupBudget must be positive");
  }

  @Test
  void theCleanupPauseFactorIsZeroByDefaultBoundFromTextAndRejectedOutsideZeroToAHundred() {
    assertThat(MaintenanceOptions.defaults().cleanupPauseFactor()).isZero();
    assertThat(MaintenanceOptions.fromMap(Map.of("cleanupPauseFactor", "0.5")).cleanupPauseFactor())
        .isEqualTo(0.5);
    assertThat(MaintenanceOptions.builder().cleanupPauseFactor(100).build().cleanupPauseFactor())
        .isEqualTo(100);
    assertRejected(
        MaintenanceOptions.builder().cleanupPauseFactor(-0.1),
        "maintenance.cleanupPauseFactor must be between 0.0 and 100.0, was -0.1");
    assertRejected(
        MaintenanceOptions.builder().cleanupPauseFactor(100.5), "maintenance.cleanupPauseFactor");
    assertRejected(
        MaintenanceOptions.builder().cleanupPauseFactor(Double.NaN),
        "maintenance.cleanupPauseFactor must be between 0.0 and 100.0, was NaN");
    assertThatThrownBy(() -> MaintenanceOptions.fromMap(Map.of("cleanupPauseFactor", "half")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("cleanupPauseFactor")
        .hasMessageContaining("'half' is not a number");
  }

  @Test
  void maintenanceBoundariesAreInclusiveAndNeverClamped() {
    assertThat(MaintenanceOptions.builder().batchSize(1).build().batchSize()).isEqualTo(1);
    assertThat(MaintenanceOptions.builder().batchSize(10_000).build().batchSize())
        .isEqualTo(10_000);
    assertThat(MaintenanceOptions.builder().recoveryDelay(Duration.ZERO).build().recoveryDelay())
        .isZero();
    assertThat(
            MaintenanceOptions.builder()
                .leaseDuration(Duration.ofSeconds(1))
                .build()
                .leaseDuration())
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(
            MaintenanceOptions.builder().leaseDuration(Duration.ofHours(1)).build().leaseDuration())
        .isEqualTo(Duration.ofHours(1));
    assertRejected(
        MaintenanceOptions.builder().batchSize(0),
        "maintenance.batchSize must be between 1 and 10000, was 0");
    assertRejected(MaintenanceOptions.builder().batchSize(10_001), "maintenance.batchSize");
    assertRejected(
        MaintenanceOptions.builder().recoveryDelay(Duration.ofMillis(-1)),
        "maintenance.recoveryDelay must not be negative");
    assertRejected(
        MaintenanceOptions.builder().sweepInterval(Duration.ZERO),
        "maintenance.sweepInterval must be positive");
    assertRejected(
        MaintenanceOptions.builder().leaseDuration(Duration.ofMillis(999)),
        "maintenance.leaseDuration must be between 1s and 1h");
    assertRejected(
        MaintenanceOptions.builder().leaseDuration(Duration.ofHours(1).plusMillis(1)),
        "maintenance.leaseDuration");
    assertRejected(
        MaintenanceOptions.builder().claimDuration(Duration.ZERO),
        "maintenance.claimDuration must be positive");
    assertRejected(
        MaintenanceOptions.builder().cleanupInterval(Duration.ofSeconds(-1)),
        "maintenance.cleanupInterval must be positive");
    assertRejected(
        MaintenanceOptions.builder().deadRetention(Retention.of(Duration.ZERO)),
        "maintenance.deadRetention must be positive");
    assertRejected(
        MaintenanceOptions.builder().inboxRetention(Retention.of(Duration.ofDays(-1))),
        "maintenance.inboxRetention must be positive");
    assertRejected(
        MaintenanceOptions.builder().idempotencyKeyRetention(Retention.of(Duration.ZERO)),
        "maintenance.idempotencyKeyRetention must be positive");
    assertRejected(
        MaintenanceOptions.builder().idempotencyKeyRetention(null),
        "maintenance: idempotencyKeyRetention must be set");
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    assertThatThrownBy(
            () ->
                MaintenanceOptions.builder()
                    .batchSize(0)
                    .sweepInterval(Duration.ZERO)
                    .leaseDuration(Duration.ZERO)
                    .build())
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.problems())
                    .hasSize(3)
                    .anyMatch(p -> p.contains("batchSize"))
                    .anyMatch(p -> p.contains("sweepInterval"))
                    .anyMatch(p -> p.contains("leaseDuration")));
  }

  @Test
  void bindingAcceptsIsoAndShortDurationsAndInfiniteRetention() {
    MaintenanceOptions o =
        MaintenanceOptions.fromMap(
            Map.of(
                "batchSize", "250",
                "recoveryDelay", "PT45S",
                "sweepInterval", "500ms",
                "leaseDuration", "2m",
                "cleanupInterval", "1h",
                "deadRetention", "infinite",
                "inboxRetention", "14d"));
    assertThat(o.batchSize()).isEqualTo(250);
    assertThat(o.recoveryDelay()).isEqualTo(Duration.ofSeconds(45));
    assertThat(o.sweepInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(o.leaseDuration()).isEqualTo(Duration.ofMinutes(2));
    assertThat(o.cleanupInterval()).isEqualTo(Duration.ofHours(1));
    assertThat(o.deadRetention().isInfinite()).isTrue();
    assertThat(o.inboxRetention()).isEqualTo(Retention.of(Duration.ofDays(14)));
    assertThat(
            MaintenanceOptions.fromMap(Map.of("idempotencyKeyRetention", "36h"))
                .idempotencyKeyRetention())
        .isEqualTo(Retention.of(Duration.ofHours(36)));
    assertThat(
            MaintenanceOptions.fromMap(Map.of("idempotencyKeyRetention", "infinite"))
                .idempotencyKeyRetention()
                .isInfinite())
        .isTrue();

    Properties properties = new Properties();
    properties.setProperty("claimDuration", "30s");
    properties.setProperty("maxAttempts", "3");
    DispatchOptions d = DispatchOptions.fromProperties(properties);
    assertThat(d.maxAttempts()).isEqualTo(3);
  }

  @Test
  void namesBindRelaxedInKebabSnakeAndEnvironmentCaseAndProblemsNameTheKeyAsGiven() {
    MaintenanceOptions m =
        MaintenanceOptions.fromMap(
            Map.of(
                "recovery-delay", "7s",
                "SWEEP_INTERVAL", "2s",
                "cleanup_batch_size", "10",
                "LeaseDuration", "9s"));
    assertThat(m.recoveryDelay()).isEqualTo(Duration.ofSeconds(7));
    assertThat(m.sweepInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(m.cleanupBatchSize()).isEqualTo(10);
    assertThat(m.leaseDuration()).isEqualTo(Duration.ofSeconds(9));
    assertThat(DispatchOptions.fromMap(Map.of("max-attempts", "3")).maxAttempts()).isEqualTo(3);
    assertThatThrownBy(() -> MaintenanceOptions.fromMap(Map.of("sweep-interval", "soon")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("maintenance.sweep-interval: 'soon' is not a duration");
    Map<String, String> twice = new java.util.LinkedHashMap<>();
    twice.put("recoveryDelay", "1s");
    twice.put("recovery-delay", "2s");
    assertThatThrownBy(() -> MaintenanceOptions.fromMap(twice))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(
            "maintenance.recoveryDelay is given twice, as 'recoveryDelay' and as 'recovery-delay'");
  }

  @Test
  void bindingRejectsUnknownKeysAndBadValuesNamingThem() {
    assertThatThrownBy(() -> MaintenanceOptions.fromMap(Map.of("batchSizes", "10")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("unknown option 'batchSizes'");
    assertThatThrownBy(() -> MaintenanceOptions.fromMap(Map.of("sweepInterval", "soon")))
        .hasMessageContaining("maintenance.sweepInterval")
        .hasMessageContaining("'soon' is not a duration");
    assertThatThrownBy(() -> MaintenanceOptions.fromMap(Map.of("batchSize", "ten")))
        .hasMessageContaining("'ten' is not a whole number");
    assertThatThrownBy(() -> DispatchOptions.fromMap(Map.of("retries", "3")))
        .hasMessageContaining("unknown option 'retries'");
  }

  @Test
  void durationsTooLongForDurationOrTheDatabaseAreRejectedNamingTheOption() {
    assertThatThrownBy(
            () -> MaintenanceOptions.fromMap(Map.of("claimDuration", "9223372036854775807d")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("maintenance.claimDuration")
        .hasMessageContaining("too long for a duration");
    assertThatThrownBy(
            () -> MaintenanceOptions.fromMap(Map.of("sweepInterval", "99999999999999999999s")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("maintenance.sweepInterval");
    assertThatThrownBy(() -> MaintenanceOptions.fromMap(Map.of("claimDuration", "200000000d")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("maintenance.claimDuration must be at most 36500d (100 years), was 200000000d");
    assertThatThrownBy(() -> DispatchOptions.fromMap(Map.of("backoffMax", "36501d")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("dispatch.backoffMax must be at most 36500d");
    assertThatThrownBy(() -> LaneOptions.fromMap(Map.of("pollInterval", "40000d")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("lanes.pollInterval must be at most 36500d");
    assertThatThrownBy(
            () ->
                MaintenanceOptions.builder()
                    .deadRetention(Retention.of(Duration.ofDays(40_000)))
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("maintenance.deadRetention must be at most 36500d");
    assertThatThrownBy(
            () ->
                MaintenanceOptions.builder()
                    .shutdownTimeout(Duration.ofSeconds(Long.MAX_VALUE))
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("maintenance.shutdownTimeout must be at most 36500d");
    assertThat(MaintenanceOptions.fromMap(Map.of("claimDuration", "36500d")).claimDuration())
        .isEqualTo(Duration.ofDays(36_500));
  }

  @Test
  void bindingRejectsNullNamesAndValuesAndNonStringProperties() {
    Map<String, String> nulls = new java.util.HashMap<>();
    nulls.put(null, "5s");
    nulls.put("sweepInterval", null);
    assertThatThrownBy(() -> MaintenanceOptions.fromMap(nulls))
        .isInstanceOf(InvalidInputException.class)
        .satisfies(
            e ->
                assertThat(((InvalidInputException) e).problems())
                    .containsExactlyInAnyOrder(
                        "maintenance: an option name is null (value 5s)",
                        "maintenance.sweepInterval must not be null"));

    Properties properties = new Properties();
    properties.put("batchSize", 5);
    properties.put(7, "x");
    properties.setProperty("sweepInterval", "5s");
    assertThatThrownBy(() -> MaintenanceOptions.fromProperties(properties))
        .isInstanceOf(InvalidInputException.class)
        .satisfies(
            e ->
                assertThat(((InvalidInputException) e).problems())
                    .containsExactlyInAnyOrder(
                        "maintenance.batchSize must be a String, was Integer 5",
                        "maintenance: option name Integer 7 is not a String"));
    Properties lanes = new Properties();
    lanes.put("threads", 2);
    assertThatThrownBy(() -> LaneOptions.fromProperties(lanes))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("lanes.threads must be a String");
    Properties dispatch = new Properties();
    dispatch.put("workers", 2L);
    assertThatThrownBy(() -> DispatchOptions.fromProperties(dispatch))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("dispatch.workers must be a String");
  }

  @Test
  void dispatchCrossFieldRulesNameBothOptions() {
    assertRejected(
        DispatchOptions.builder()
            .sendTimeout(Duration.ofSeconds(30))
            .claimDuration(Duration.ofSeconds(30)),
        "sendTimeout (30s) must be shorter than claimDuration (30s) by at least 1s");
    assertRejected(
        DispatchOptions.builder()
            .sendTimeout(Duration.ofSeconds(10))
            .claimDuration(Duration.ofMillis(10_999)),
        "sendTimeout (10s) must be shorter than claimDuration (10999ms) by at least 1s");
    assertThat(
            DispatchOptions.builder()
                .sendTimeout(Duration.ofSeconds(10))
                .claimDuration(Duration.ofSeconds(11))
                .build()
                .claimDuration())
        .isEqualTo(Duration.ofSeconds(11));
    assertRejected(
        DispatchOptions.builder()
            .backoffInitial(Duration.ofMinutes(10))
            .backoffMax(Duration.ofMinutes(1)),
        "backoffMax must not be shorter than backoffInitial");
    assertRejected(
        DispatchOptions.builder().maxAttempts(0),
        "dispatch.maxAttempts must be between 1 and 1000");
    assertRejected(DispatchOptions.builder().workers(65), "dispatch.workers");
    assertRejected(DispatchOptions.builder().queueCapacity(0), "dispatch.queueCapacity");
  }

  @Test
  void laneNotifyIntervalDefaultsToFiveMillisecondsBindsAndIsBoundedWithoutClamping() {
    assertThat(DispatchOptions.defaults().laneNotifyInterval()).isEqualTo(Duration.ofMillis(5));
    assertThat(DispatchOptions.defaults().describe()).contains("laneNotifyInterval=5ms");
    assertThat(DispatchOptions.fromMap(Map.of("laneNotifyInterval", "20ms")).laneNotifyInterval())
        .isEqualTo(Duration.ofMillis(20));
    assertThat(
            DispatchOptions.builder()
                .laneNotifyInterval(Duration.ofMillis(1))
                .build()
                .laneNotifyInterval())
        .isEqualTo(Duration.ofMillis(1));
    assertThat(
            DispatchOptions.builder()
                .laneNotifyInterval(Duration.ofSeconds(1))
                .build()
                .laneNotifyInterval())
        .isEqualTo(Duration.ofSeconds(1));
    assertRejected(
        DispatchOptions.builder().laneNotifyInterval(Duration.ofNanos(999_999)),
        "dispatch.laneNotifyInterval");
    assertRejected(
        DispatchOptions.builder().laneNotifyInterval(Duration.ofMillis(1001)),
        "dispatch.laneNotifyInterval");
    assertRejected(
        DispatchOptions.builder().laneNotifyInterval(null), "dispatch.laneNotifyInterval");
  }

  @Test
  void backoffGrowsExponentiallyWithJitterUpToItsCap() {
    var backoff =
        new dev.relayer.dispatch.internal.Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));
    assertThat(backoff.base(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(backoff.base(3)).isEqualTo(Duration.ofSeconds(4));
    assertThat(backoff.base(10)).isEqualTo(Duration.ofSeconds(30));
    assertThat(backoff.base(1000)).isEqualTo(Duration.ofSeconds(30));
    for (int i = 0; i < 100; i++) {
      assertThat(backoff.delayAfter(3)).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(4));
    }
  }

  @Test
  void healthThresholdsClassifyCountsAsDesigned() {
    RelayerHealth health =
        new RelayerHealth(
            dev.relayer.store.RelayerStore.create(dev.relayer.store.StoreOptions.defaults()),
            10,
            20,
            java.time.Clock.systemUTC());
    assertThat(health.evaluate(9)).isEqualTo(HealthStatus.HEALTHY);
    assertThat(health.evaluate(10)).isEqualTo(HealthStatus.DEGRADED);
    assertThat(health.evaluate(19)).isEqualTo(HealthStatus.DEGRADED);
    assertThat(health.evaluate(20)).isEqualTo(HealthStatus.UNHEALTHY);
    assertThatThrownBy(
            () ->
                new RelayerHealth(
                    dev.relayer.store.RelayerStore.create(
                        dev.relayer.store.StoreOptions.defaults()),
                    20,
                    10,
                    java.time.Clock.systemUTC()))
        .hasMessageContaining("unhealthyAt must not be below degradedAt");
  }

  @Test
  void healthAgeThresholdsClassifyAgesAsDesignedAndBadOptionsAreNamedTogether() {
    var store = dev.relayer.store.RelayerStore.create(dev.relayer.store.StoreOptions.defaults());
    RelayerHealth health =
        RelayerHealth.builder(store)
            .ageThresholds(Duration.ofSeconds(60), Duration.ofSeconds(300))
            .build();
    assertThat(health.evaluateAge(java.util.Optional.empty())).isEqualTo(HealthStatus.HEALTHY);
    assertThat(health.evaluateAge(java.util.Optional.of(Duration.ofMillis(59_999))))
        .isEqualTo(HealthStatus.HEALTHY);
    assertThat(health.evaluateAge(java.util.Optional.of(Duration.ofSeconds(60))))
        .isEqualTo(HealthStatus.DEGRADED);
    assertThat(health.evaluateAge(java.util.Optional.of(Duration.ofMillis(299_999))))
        .isEqualTo(HealthStatus.DEGRADED);
    assertThat(health.evaluateAge(java.util.Optional.of(Duration.ofMinutes(5))))
        .isEqualTo(HealthStatus.UNHEALTHY);
    assertThatThrownBy(
            () ->
                RelayerHealth.builder(store)
                    .ageThresholds(Duration.ofMinutes(5), Duration.ofMinutes(1))
                    .recoveryDelay(Duration.ofSeconds(-1))
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("ageUnhealthyAt must not be below ageDegradedAt")
        .hasMessageContaining("health.recoveryDelay must not be negative");
    assertThatThrownBy(
            () -> RelayerHealth.builder(store).ageThresholds(Duration.ZERO, Duration.ZERO).build())
        .hasMessageContaining("health.ageDegradedAt must be positive");
  }

  @Test
  void theHealthRowLimitDefaultsToTenThousandOrUnhealthyAtAndIsNeverBelowUnhealthyAt() {
    var store = dev.relayer.store.RelayerStore.create(dev.relayer.store.StoreOptions.defaults());
    assertThat(RelayerHealth.builder(store).build().rowLimit()).isEqualTo(10_000);
    assertThat(RelayerHealth.builder(store).eligibleThresholds(1_000, 50_000).build().rowLimit())
        .isEqualTo(50_000);
    assertThat(RelayerHealth.builder(store).rowLimit(250_000).build().rowLimit())
        .isEqualTo(250_000);
    assertThatThrownBy(() -> RelayerHealth.builder(store).rowLimit(9_999).build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("rowLimit=9999 must not be below unhealthyAt=10000");
  }

  private static void assertRejected(MaintenanceOptions.Builder builder, String message) {
    assertThatThrownBy(builder::build)
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(message);
  }

  private static void assertRejected(DispatchOptions.Builder builder, String message) {
    assertThatThrownBy(builder::build)
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(message);
  }
}
