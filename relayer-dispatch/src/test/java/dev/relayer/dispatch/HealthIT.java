package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.store.NewMessage;
import dev.relayer.store.pass.ClaimByIds;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The eligible-backlog predicate at an explicit instant, and health on top of it. */
class HealthIT {

  DispatchFixture fx;
  Instant now;
  RelayerHealth health;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture(2);
    now = Instant.now().truncatedTo(ChronoUnit.MICROS);
    health = new RelayerHealth(fx.store, 10, 20, Clock.systemUTC());
    seedRowsThatAreNeverEligibleAtNow();
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  /** Live claims, future schedules, parked rows and dead rows: none of them count. */
  private void seedRowsThatAreNeverEligibleAtNow() {
    var dsl = fx.dsl;
    long live = fx.store.enqueue(dsl, message("live-claim"));
    fx.claimByIds(dsl, new ClaimByIds(List.of(live), now.minusSeconds(1), Duration.ofSeconds(30)));
    fx.store.enqueue(dsl, withDeliverAt(now.plusMillis(1)));
    fx.store.enqueue(
        dsl,
        NewMessage.builder()
            .transport("memory")
            .destination("d")
            .messageType("T")
            .body(new byte[1])
            .orderingKey("k")
            .build());
    fx.parkHead("k", "boom", now);
    long dead = fx.store.enqueue(dsl, message("dead"));
    var claim =
        fx.claimByIds(
            dsl, new ClaimByIds(List.of(dead), now.minusSeconds(1), Duration.ofSeconds(30)));
    fx.bury(dsl, claim, "max-attempts", "e", now);
  }

  private static NewMessage withDeliverAt(Instant at) {
    return NewMessage.builder()
        .transport("memory")
        .destination("later")
        .messageType("T")
        .body(new byte[1])
        .deliverAt(at)
        .build();
  }

  /**
   * Adds {@code count} eligible rows, cycling through the eligible kinds: plain, scheduled exactly
   * at now, claim expired exactly at now, claim expired before now.
   */
  private void addEligible(int count) {
    List<Long> claimEndsNow = new ArrayList<>();
    List<Long> claimEndedBefore = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      switch (i % 4) {
        case 0 -> fx.store.enqueue(fx.dsl, message("plain"));
        case 1 -> fx.store.enqueue(fx.dsl, withDeliverAt(now));
        case 2 -> claimEndsNow.add(fx.store.enqueue(fx.dsl, message("claim-ends-now")));
        default -> claimEndedBefore.add(fx.store.enqueue(fx.dsl, message("claim-ended")));
      }
    }
    Duration claim = Duration.ofSeconds(30);
    fx.claimByIds(fx.dsl, new ClaimByIds(claimEndsNow, now.minus(claim), claim));
    fx.claimByIds(
        fx.dsl, new ClaimByIds(claimEndedBefore, now.minus(claim).minusSeconds(1), claim));
  }

  @Test
  void nineEligibleRowsAreHealthy() {
    addEligible(9);
    HealthReport report = health.check(fx.dsl, now);
    assertThat(report.eligible()).isEqualTo(9);
    assertThat(health.evaluate(report.eligible())).isEqualTo(HealthStatus.HEALTHY);
    // The seeded parked key alone makes the status degraded, and is the only reason.
    assertThat(report.status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(report.reasons()).singleElement().asString().startsWith("parkedKeys=1");
    assertThat(report.parkedKeys()).isEqualTo(1);
    assertThat(report.deadRows()).isEqualTo(1);
    assertThat(report.oldestEligibleAge()).isPresent();
  }

  @Test
  void tenEligibleRowsAreDegraded() {
    addEligible(10);
    assertThat(health.check(fx.dsl, now).status()).isEqualTo(HealthStatus.DEGRADED);
  }

  @Test
  void nineteenEligibleRowsAreDegraded() {
    addEligible(19);
    HealthReport report = health.check(fx.dsl, now);
    assertThat(report.eligible()).isEqualTo(19);
    assertThat(report.status()).isEqualTo(HealthStatus.DEGRADED);
  }

  @Test
  void twentyEligibleRowsAreUnhealthy() {
    addEligible(20);
    assertThat(health.check(fx.dsl, now).status()).isEqualTo(HealthStatus.UNHEALTHY);
  }

  /**
   * Twenty due pending rows: the seeded live claim, five eligible rows and fourteen more live
   * claims. A read limited to twenty stops there; one limited to twenty-one sees them all.
   */
  @Test
  void aReadThatStopsAtItsRowLimitIsUnhealthyHoweverFewOfItsRowsAreEligible() {
    addEligible(5);
    List<Long> inFlight = new ArrayList<>();
    for (int i = 0; i < 14; i++) {
      inFlight.add(fx.store.enqueue(fx.dsl, message("in-flight")));
    }
    fx.claimByIds(fx.dsl, new ClaimByIds(inFlight, now.minusSeconds(1), Duration.ofSeconds(30)));
    RelayerHealth.Builder limited = RelayerHealth.builder(fx.store).eligibleThresholds(10, 20);

    HealthReport stopped = limited.rowLimit(20).build().check(fx.dsl, now);
    HealthReport whole = limited.rowLimit(21).build().check(fx.dsl, now);

    assertThat(stopped.rowLimitReached()).isTrue();
    assertThat(stopped.eligible()).isEqualTo(5);
    assertThat(stopped.status()).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(stopped.reasons())
        .singleElement()
        .asString()
        .contains("rowLimit=20", "eligible=5", "unhealthyAt=20");
    assertThat(whole.rowLimitReached()).isFalse();
    assertThat(whole.eligible()).isEqualTo(5);
    // Healthy by count; the seeded parked key alone makes it degraded.
    assertThat(whole.status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(whole.reasons()).singleElement().asString().startsWith("parkedKeys=1");
  }

  @Test
  void theReportNamesTheSweeperLeaseHolder() {
    try (RelayerDispatcher dispatcher =
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(dev.relayer.transport.memory.InMemoryTransport.named("memory"))
                .build();
        RelayerMaintenance maintenance =
            RelayerMaintenance.create(dispatcher, MaintenanceOptions.defaults(), "instance-7")) {
      maintenance.sweepOnce();
      HealthReport report = health.check(fx.dsl);
      assertThat(report.sweeperLease())
          .get()
          .satisfies(l -> assertThat(l.owner()).isEqualTo("instance-7"));
    }
  }
}
