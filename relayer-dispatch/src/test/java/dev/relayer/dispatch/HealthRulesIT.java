package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The age rule, the failing-transport rule and the report's counts, each at its boundaries, on a
 * real PostgreSQL; the eligible-count rule's boundaries are in {@link HealthIT}.
 */
class HealthRulesIT {

  DispatchFixture fx;
  InMemoryTransport memory;
  SettableClock clock;
  RelayerDispatcher dispatcher;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture(4);
    memory = InMemoryTransport.named("memory");
    // A whole second, just ahead of the database's now(): rows written next are not in its future.
    clock = new SettableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1));
    dispatcher = fx.dispatcher(memory, clock);
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private RelayerHealth.Builder health() {
    return RelayerHealth.builder(fx.store).eligibleThresholds(1_000, 2_000).clock(clock);
  }

  /** Writes one unordered row and returns its {@code created_at}. */
  private Instant written() {
    return fx.createdAt(fx.store.enqueue(fx.dsl, message("health")));
  }

  @Test
  void theOldestEligibleAgeIsHealthyBelowDegradedAtAndUnhealthyFromUnhealthyAt() {
    RelayerHealth health =
        health().ageThresholds(Duration.ofSeconds(60), Duration.ofSeconds(300)).build();
    Instant created = written();
    Duration micro = Duration.of(1, ChronoUnit.MICROS);

    assertThat(health.check(fx.dsl, created.plusSeconds(60).minus(micro)).status())
        .isEqualTo(HealthStatus.HEALTHY);
    HealthReport degraded = health.check(fx.dsl, created.plusSeconds(60));
    assertThat(degraded.status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(degraded.reasons()).singleElement().asString().contains("ageDegradedAt=1m");
    assertThat(health.check(fx.dsl, created.plusSeconds(300).minus(micro)).status())
        .isEqualTo(HealthStatus.DEGRADED);
    HealthReport unhealthy = health.check(fx.dsl, created.plusSeconds(300));
    assertThat(unhealthy.status()).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(unhealthy.reasons()).singleElement().asString().contains("ageUnhealthyAt=5m");
  }

  @Test
  void aTransportThatFailsEverySendDegradesTheStatusForAMinute() {
    memory.reject(m -> true, "broker down");
    RelayerHealth health =
        health()
            .ageThresholds(Duration.ofHours(1), Duration.ofHours(2))
            .failingAgeThresholds(Duration.ofHours(1), Duration.ofHours(2))
            .dispatcher(dispatcher)
            .build();
    RelayerMaintenance maintenance =
        fx.track(RelayerMaintenance.create(dispatcher, DispatchFixture.fastMaintenance().build()));
    clock.catchUp(fx.createdAt(fx.store.enqueue(fx.dsl, message("a"))));
    Instant failedAt = clock.instant();
    assertThat(health.check(fx.dsl).status())
        .as("nothing sent yet")
        .isEqualTo(HealthStatus.HEALTHY);

    assertThat(maintenance.sweepOnce().claimed()).isEqualTo(1);

    HealthReport failing = health.check(fx.dsl);
    assertThat(failing.status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(failing.reasons()).singleElement().asString().contains("transport=memory");
    TransportSends sends = failing.transports().get("memory");
    assertThat(sends.failed()).isEqualTo(1);
    assertThat(sends.succeeded()).isZero();
    assertThat(sends.failingSince()).contains(failedAt);
    assertThat(sends.lastError()).hasValueSatisfying(e -> assertThat(e).contains("broker down"));
    assertThat(sends.lastFailedDestination()).contains("a");
    assertThat(failing.retrying()).isEqualTo(1);
    assertThat(failing.eligible()).as("waiting out its retry").isZero();

    clock.set(failedAt.plusSeconds(59).plusMillis(999));
    assertThat(health.check(fx.dsl).status()).isEqualTo(HealthStatus.DEGRADED);
    clock.set(failedAt.plusSeconds(60));
    HealthReport later = health.check(fx.dsl);
    assertThat(later.transports().get("memory").failed()).as("out of the window").isZero();
    assertThat(later.status()).isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void oneAcceptedSendAmongFailuresIsNotATransportFailingEverySend() {
    memory.reject(m -> m.body().length > 14, "rejected");
    RelayerHealth health =
        health()
            .ageThresholds(Duration.ofHours(1), Duration.ofHours(2))
            .dispatcher(dispatcher)
            .build();
    RelayerMaintenance maintenance =
        fx.track(RelayerMaintenance.create(dispatcher, DispatchFixture.fastMaintenance().build()));
    fx.store.enqueue(fx.dsl, message("a")); // body {"order":"a"}: 13 bytes, accepted
    clock.catchUp(fx.createdAt(fx.store.enqueue(fx.dsl, message("rejected-one"))));

    maintenance.sweepOnce();

    HealthReport report = health.check(fx.dsl);
    assertThat(report.transports().get("memory").succeeded()).isEqualTo(1);
    assertThat(report.transports().get("memory").failed()).isEqualTo(1);
    assertThat(report.status()).isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void aDegradedReportNamesTheLongestParkedKeysOldestFirstAndCountsTheRest() {
    RelayerHealth health =
        health().ageThresholds(Duration.ofSeconds(60), Duration.ofHours(1)).build();
    Instant now = clock.instant();
    List<String> keys = List.of("key-a", "key-b", "key-c", "key-d");
    for (int i = 0; i < keys.size(); i++) {
      fx.store.enqueue(fx.dsl, DispatchFixture.ordered(keys.get(i)));
      // key-d parked last; key-a, parked 400 s before now, longest.
      fx.parkHead(keys.get(i), "broker said no to " + keys.get(i), now.minusSeconds(400 - 100 * i));
    }
    Instant behind = Instant.EPOCH;
    for (String key : keys) {
      behind = fx.createdAt(fx.store.enqueue(fx.dsl, DispatchFixture.ordered(key)));
    }

    HealthReport report = health.check(fx.dsl, behind.plusSeconds(61));

    assertThat(report.status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(report.parkedKeys()).isEqualTo(4);
    assertThat(report.reasons())
        .singleElement()
        .asString()
        .containsSubsequence(
            "ageDegradedAt=1m; parkedKeys=4",
            "key='key-a' (lane=",
            "head id=",
            "error: broker said no to key-a",
            "key='key-b'",
            "key='key-c'",
            "and 1 more")
        .doesNotContain("key-d");
  }

  @Test
  void theReportCountsRetryingNeverHandedOffParkedAndRecentDeadRowsAndListsEveryLease() {
    Duration recovery = Duration.ofSeconds(30);
    RelayerHealth health = health().recoveryDelay(recovery).build();
    Instant now = clock.instant();
    var dsl = fx.dsl;
    // Never handed off: written, never claimed; counted once older than the recovery delay.
    Instant unclaimed = written();
    // Retrying: claimed, failed, held until later.
    long failing = fx.store.enqueue(dsl, message("retry"));
    var claim = fx.claimByIds(dsl, new ClaimByIds(List.of(failing), now, Duration.ofSeconds(5)));
    fx.retryLater(dsl, claim, "boom", now.plusSeconds(3600));
    // Parked head at a known instant.
    long head = fx.store.enqueue(dsl, DispatchFixture.ordered("customer-1"));
    dsl.update(DSL.table(DSL.name("public", "relayer_outbox")))
        .set(DSL.field(DSL.name("status"), String.class), "parked")
        .set(
            DSL.field(DSL.name("parked_at"), OffsetDateTime.class),
            OffsetDateTime.ofInstant(now.minusSeconds(90), java.time.ZoneOffset.UTC))
        .where(DSL.field(DSL.name("id"), Long.class).eq(head))
        .execute();
    // Dead rows: exactly one hour old (not recent) and just inside the hour.
    for (Instant failedAt : List.of(now.minus(Duration.ofHours(1)), now.minusSeconds(3599))) {
      long id = fx.store.enqueue(dsl, message("dead"));
      var c = fx.claimByIds(dsl, new ClaimByIds(List.of(id), now, Duration.ofSeconds(5)));
      fx.bury(dsl, c, "max-attempts", "e", failedAt);
    }
    dsl.transaction(
        tx -> {
          fx.passes
              .leases()
              .tryAcquire(tx.dsl(), new LeaseRequest("sweeper", "a", Duration.ofMinutes(1)));
          fx.passes
              .leases()
              .tryAcquire(tx.dsl(), new LeaseRequest("cleanup", "b", Duration.ofMinutes(1)));
          fx.passes
              .leases()
              .tryAcquire(tx.dsl(), new LeaseRequest("lane/3", "c", Duration.ofMinutes(1)));
          fx.passes
              .leases()
              .tryAcquire(tx.dsl(), new LeaseRequest("instance/c", "c", Duration.ofMinutes(1)));
        });

    HealthReport young = health.check(dsl, unclaimed.plus(recovery).minusNanos(1000));
    assertThat(young.neverHandedOff()).isZero();
    HealthReport report = health.check(dsl, unclaimed.plus(recovery));
    assertThat(report.neverHandedOff()).isEqualTo(1);
    assertThat(report.retrying()).isEqualTo(1);
    assertThat(report.oldestRetryingAge()).isPresent();
    assertThat(report.eligible()).as("the unclaimed row").isEqualTo(1);
    assertThat(report.oldestPendingAge().orElseThrow())
        .isGreaterThanOrEqualTo(report.oldestEligibleAge().orElseThrow());
    assertThat(report.parkedKeys()).isEqualTo(1);
    assertThat(report.oldestParkedAge())
        .contains(Duration.between(now.minusSeconds(90), unclaimed.plus(recovery)));
    assertThat(report.deadRows()).isEqualTo(2);
    HealthReport atNow = health.check(dsl, now);
    assertThat(atNow.deadRowsLastHour()).as("exactly an hour old is not within it").isEqualTo(1);
    assertThat(report.leases())
        .extracting(l -> l.name() + "=" + l.owner())
        .containsExactly("cleanup=b", "instance/c=c", "lane/3=c", "sweeper=a");
    assertThat(report.sweeperLease()).hasValueSatisfying(l -> assertThat(l.owner()).isEqualTo("a"));
  }

  /** Claims {@code id} at the clock's now and records a failure holding it until {@code until}. */
  private void failed(long id, Instant until) {
    var claim =
        fx.claimByIds(fx.dsl, new ClaimByIds(List.of(id), clock.instant(), Duration.ofSeconds(5)));
    fx.retryLater(fx.dsl, claim, "connection refused", until);
  }

  @Test
  void
      aRowWithOnlyFailuresDegradesFromFailingAgeDegradedAtAndIsUnhealthyFromFailingAgeUnhealthyAtWhileItWaitsOutItsRetry() {
    RelayerHealth health =
        health().failingAgeThresholds(Duration.ofSeconds(60), Duration.ofMinutes(15)).build();
    long id = fx.store.enqueue(fx.dsl, message("refused"));
    Instant created = fx.createdAt(id);
    clock.catchUp(created);
    // Held far beyond every check: never eligible, sent by no one, as in a long backoff.
    failed(id, created.plus(Duration.ofHours(2)));
    Duration micro = Duration.of(1, ChronoUnit.MICROS);

    HealthReport young = health.check(fx.dsl, created.plusSeconds(60).minus(micro));
    assertThat(young.status()).isEqualTo(HealthStatus.HEALTHY);
    assertThat(young.failing()).isEqualTo(1);
    assertThat(young.eligible()).as("waiting out its retry").isZero();
    HealthReport degraded = health.check(fx.dsl, created.plusSeconds(60));
    assertThat(degraded.status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(degraded.oldestFailingAge()).contains(Duration.ofSeconds(60));
    assertThat(degraded.reasons())
        .singleElement()
        .asString()
        .contains("oldestFailingAge=1m", "failingAgeDegradedAt=1m");
    assertThat(health.check(fx.dsl, created.plusSeconds(900).minus(micro)).status())
        .isEqualTo(HealthStatus.DEGRADED);
    HealthReport unhealthy = health.check(fx.dsl, created.plusSeconds(900));
    assertThat(unhealthy.status()).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(unhealthy.reasons())
        .singleElement()
        .asString()
        .contains("failingAgeUnhealthyAt=15m");
  }

  @Test
  void
      failingRowsWaitingOrDueAgainAreHealthyBelowFailingDegradedAtAndUnhealthyFromFailingUnhealthyAt() {
    RelayerHealth health = health().failingThresholds(2, 3).build();
    Instant now = clock.instant();
    failed(fx.store.enqueue(fx.dsl, message("held")), now.plusSeconds(3600));
    assertThat(health.check(fx.dsl, now).status()).isEqualTo(HealthStatus.HEALTHY);

    // Its hold has ended: due again, still failing until it is sent.
    failed(fx.store.enqueue(fx.dsl, message("due-again")), now);
    HealthReport degraded = health.check(fx.dsl, now);
    assertThat(degraded.failing()).isEqualTo(2);
    assertThat(degraded.retrying()).as("one waits out its hold").isEqualTo(1);
    assertThat(degraded.status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(degraded.reasons())
        .singleElement()
        .asString()
        .contains("failing=2", "failingDegradedAt=2");

    failed(fx.store.enqueue(fx.dsl, message("held")), now.plusSeconds(3600));
    HealthReport unhealthy = health.check(fx.dsl, now);
    assertThat(unhealthy.status()).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(unhealthy.reasons()).singleElement().asString().contains("failingUnhealthyAt=3");
  }

  @Test
  void aTransportFailingEverySendStaysFailingWhileItsRowsWaitOutABackoffLongerThanAMinute() {
    memory.reject(m -> true, "broker down");
    RelayerDispatcher slow =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(memory)
                .clock(clock)
                .options(
                    DispatchFixture.fastOptions()
                        .backoffInitial(Duration.ofMinutes(10))
                        .backoffMax(Duration.ofMinutes(10))
                        .build())
                .build());
    RelayerHealth health =
        health()
            .ageThresholds(Duration.ofHours(1), Duration.ofHours(2))
            .failingAgeThresholds(Duration.ofHours(1), Duration.ofHours(2))
            .dispatcher(slow)
            .build();
    RelayerMaintenance maintenance =
        fx.track(RelayerMaintenance.create(slow, DispatchFixture.fastMaintenance().build()));
    clock.catchUp(fx.createdAt(fx.store.enqueue(fx.dsl, message("a"))));
    Instant failedAt = clock.instant();
    assertThat(maintenance.sweepOnce().claimed()).isEqualTo(1);

    // Its retry is 5 to 10 minutes away: no send falls in the last minute, the transport is
    // still failing.
    clock.set(failedAt.plusSeconds(61));
    HealthReport inBackoff = health.check(fx.dsl);
    assertThat(inBackoff.transports().get("memory").failed()).as("out of the window").isZero();
    assertThat(inBackoff.status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(inBackoff.reasons())
        .singleElement()
        .asString()
        .contains("transport=memory has failed every send since " + failedAt);
    clock.set(failedAt.plus(Duration.ofMinutes(5)).minusSeconds(1));
    assertThat(health.check(fx.dsl).status()).isEqualTo(HealthStatus.DEGRADED);

    // The retry never came (no sweeper ran): 30 s after the hold ended the memory lapses.
    clock.set(failedAt.plus(Duration.ofMinutes(10)).plusSeconds(30));
    assertThat(health.check(fx.dsl).transports().get("memory").failing()).isFalse();
    assertThat(health.check(fx.dsl).status()).isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void aParkedKeyAloneDegradesTheStatusAndTheReasonNamesIt() {
    RelayerHealth health = health().build();
    fx.store.enqueue(fx.dsl, DispatchFixture.ordered("customer-9"));
    fx.parkHead("customer-9", "broker said no", clock.instant());

    HealthReport report = health.check(fx.dsl, clock.instant());

    assertThat(report.status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(report.reasons())
        .singleElement()
        .asString()
        .contains("parkedKeys=1", "key='customer-9'", "error: broker said no");
  }
}
