package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.store.NewMessage;
import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the operator's WARN summaries count, on the real delivery path. */
class OperatorSignalsIT {

  DispatchFixture fx;
  InMemoryTransport memory;
  SettableClock clock;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture(4);
    memory = InMemoryTransport.named("memory");
    clock = new SettableClock(Instant.now().plusSeconds(1));
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private RelayerDispatcher dispatcher(DispatchOptions options) {
    return fx.track(
        RelayerDispatcher.builder(fx.store, fx.dsl)
            .transport(memory)
            .clock(clock)
            .options(options)
            .build());
  }

  @Test
  void theSweeperCountsRowsItDeliveredOnTheirFirstClaimButNotScheduledOrRetriedOnes() {
    RelayerDispatcher dispatcher = dispatcher(DispatchFixture.fastOptions().build());
    RelayerMaintenance maintenance =
        fx.track(RelayerMaintenance.create(dispatcher, DispatchFixture.fastMaintenance().build()));
    fx.store.enqueue(fx.dsl, message("never-handed-off"));
    long claimedBefore = fx.store.enqueue(fx.dsl, message("claimed-before"));
    clock.catchUp(fx.createdAt(claimedBefore));
    fx.claimByIds(
        fx.dsl,
        new ClaimByIds(
            List.of(claimedBefore), clock.instant().minusSeconds(10), Duration.ofSeconds(5)));
    Instant due = clock.instant().plus(Duration.ofHours(1));
    fx.store.enqueue(
        fx.dsl,
        NewMessage.builder()
            .transport("memory")
            .destination("scheduled")
            .messageType("Reminder")
            .body(new byte[] {1})
            .deliverAt(due)
            .build());

    assertThat(maintenance.sweepOnce().sent()).isEqualTo(2);
    clock.set(due);
    assertThat(maintenance.sweepOnce().sent()).isEqualTo(1);

    assertThat(memory.deliveries()).hasSize(3);
    assertThat(dispatcher.delivery().handoffs().sweptWithoutHandoffTotal()).isEqualTo(1);
  }

  @Test
  void aFullHandOffQueueCountsEveryDroppedId() {
    RelayerDispatcher dispatcher =
        dispatcher(DispatchFixture.fastOptions().queueCapacity(1).build());

    dispatcher.afterCommit(List.of(1L, 2L, 3L));

    assertThat(dispatcher.queuedIds()).isEqualTo(1);
    assertThat(dispatcher.delivery().handoffs().droppedTotal()).isEqualTo(2);
  }
}
