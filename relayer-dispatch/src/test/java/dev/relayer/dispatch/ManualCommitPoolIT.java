package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.store.health.HealthReads;
import dev.relayer.store.health.LeaseState;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Background components on a pool whose connections do not auto-commit (HikariCP's {@code
 * autoCommit=false}, a common setting beside an ORM): what they write outside a pass's transaction
 * is committed all the same, not rolled back when the connection goes back to the pool. The rows
 * are read through the fixture's own auto-commit pool.
 */
class ManualCommitPoolIT {

  DispatchFixture fx;
  RelayerDispatcher dispatcher;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture(4);
    dispatcher = fx.dispatcherOnOwnPool(4, false);
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  @Test
  void closingMaintenanceGivesTheSweeperAndCleanupLeasesUp() {
    RelayerMaintenance maintenance =
        fx.track(
            RelayerMaintenance.create(
                dispatcher,
                DispatchFixture.fastMaintenance().leaseDuration(Duration.ofMinutes(10)).build()));
    maintenance.start();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                HealthReads.of(fx.store).liveLeases(fx.dsl, "").stream()
                        .map(LeaseState::name)
                        .filter(name -> name.equals("sweeper") || name.equals("cleanup"))
                        .count()
                    == 2);

    maintenance.close();

    assertThat(HealthReads.of(fx.store).liveLeases(fx.dsl, ""))
        .as("leases left after close")
        .isEmpty();
  }

  @Test
  void closingLanesGivesEveryLaneLeaseAndTheHeartbeatUp() {
    dispatcher.start();
    RelayerLanes lanes =
        fx.track(
            RelayerLanes.builder(dispatcher)
                .owner("manual")
                .options(DispatchFixture.fastLanes().leaseDuration(Duration.ofSeconds(30)).build())
                .build());
    lanes.start();
    fx.app(dispatcher).transaction(tx -> fx.store.enqueue(tx.dsl(), DispatchFixture.ordered("k")));
    await().atMost(Duration.ofSeconds(10)).until(() -> fx.outboxCount() == 0);
    assertThat(HealthReads.of(fx.store).liveLeases(fx.dsl, "lane/"))
        .as("the lane that sent the message is held")
        .isNotEmpty();

    lanes.close();

    assertThat(HealthReads.of(fx.store).liveLeases(fx.dsl, ""))
        .as("leases left after close")
        .isEmpty();
  }
}
