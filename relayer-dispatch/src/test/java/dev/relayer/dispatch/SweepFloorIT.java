package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.store.NewMessage;
import dev.relayer.transport.memory.InMemoryTransport;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sweeper's floor: traversals start from the lowest pending unordered id, yet a row that
 * appears below it later is still swept — written by a transaction that was running when the
 * sweeper looked, or drawn from a cached identity sequence.
 */
class SweepFloorIT {

  private static final Duration FULL_SWEEP = Duration.ofMinutes(10);

  DispatchFixture fx;
  InMemoryTransport memory;
  SettableClock clock;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture();
    memory = InMemoryTransport.named("memory");
    clock = new SettableClock(Instant.now());
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private RelayerMaintenance maintenance() {
    RelayerDispatcher dispatcher = fx.dispatcher(memory, clock);
    return fx.track(
        RelayerMaintenance.create(
            dispatcher, DispatchFixture.fastMaintenance().fullSweepInterval(FULL_SWEEP).build()));
  }

  /** A message that stays pending through the test: due only in a year. */
  private static NewMessage dueInAYear() {
    return NewMessage.builder()
        .transport("memory")
        .destination("later")
        .messageType("Reminder")
        .body(new byte[] {1})
        .deliverAt(Instant.now().plus(Duration.ofDays(365)))
        .build();
  }

  /** Runs {@code passes} sweep passes, with the clock past every row written so far. */
  private void sweep(RelayerMaintenance maintenance, int passes) {
    clock.catchUp(Instant.now());
    for (int i = 0; i < passes; i++) {
      maintenance.sweepOnce();
    }
  }

  @Test
  void aRowCommittedAfterAHigherIdWasSeenIsSweptOnceItsWriterEnds() throws Exception {
    RelayerMaintenance maintenance = maintenance();
    NewMessage late = message("late");
    NewMessage early = message("early");
    try (Connection writer = fx.pool.getConnection()) {
      writer.setAutoCommit(false);
      long lateId = fx.store.enqueue(DSL.using(writer, SQLDialect.POSTGRES), late);
      long heldId = fx.dsl.transactionResult(tx -> fx.store.enqueue(tx.dsl(), dueInAYear()));
      fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), early));
      assertThat(lateId).isLessThan(heldId);

      // The held row is the lowest pending id every traversal finds while the writer runs.
      sweep(maintenance, 6);
      assertThat(memory.deliveredIds()).containsExactly(early.messageId());

      writer.commit();
    }
    sweep(maintenance, 6);

    assertThat(memory.deliveredIds()).containsExactly(early.messageId(), late.messageId());
    assertThat(fx.outboxCount()).as("the held row stays").isEqualTo(1);
  }

  @Test
  void aRowDrawnFromACachedIdentityBelowTheFloorIsSweptByTheNextTraversalFromIdZero()
      throws Exception {
    fx.dsl.execute("ALTER TABLE public.relayer_outbox ALTER COLUMN id SET CACHE 100");
    RelayerMaintenance maintenance = maintenance();
    try (Connection cached = fx.pool.getConnection();
        Connection other = fx.pool.getConnection()) {
      DSLContext first = DSL.using(cached, SQLDialect.POSTGRES);
      DSLContext second = DSL.using(other, SQLDialect.POSTGRES);
      long firstId = fx.store.enqueue(first, message("first"));
      long heldId = fx.store.enqueue(second, dueInAYear());
      assertThat(heldId).as("each session draws from its own cached range").isGreaterThan(firstId);
      sweep(maintenance, 6);
      assertThat(memory.deliveredIds()).hasSize(1);

      NewMessage below = message("below");
      long belowId = fx.store.enqueue(first, below);
      assertThat(belowId).isLessThan(heldId);
      sweep(maintenance, 6);
      assertThat(memory.deliveredIds())
          .as("the floor sits below the held row, above this one")
          .doesNotContain(below.messageId());

      clock.advance(FULL_SWEEP);
      sweep(maintenance, 3);
      assertThat(memory.deliveredIds()).contains(below.messageId());
      assertThat(fx.outboxCount()).as("the held row stays").isEqualTo(1);
    }
  }
}
