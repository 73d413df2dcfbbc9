package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.store.NewMessage;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Scheduled rows go out once due, not {@code recoveryDelay} after they were written; rows that were
 * due when written still wait out the recovery delay. Time is the injected clock's: the sweeper's
 * {@code now}; {@code created_at} is the database's.
 */
class ScheduledDeliveryIT {

  static final Duration RECOVERY = Duration.ofHours(1);

  DispatchFixture fx;
  InMemoryTransport memory;
  SettableClock clock;
  RelayerDispatcher dispatcher;
  RelayerMaintenance maintenance;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture(4);
    memory = InMemoryTransport.named("memory");
    clock = new SettableClock(Instant.now());
    dispatcher = fx.dispatcher(memory, clock);
    maintenance =
        fx.track(
            RelayerMaintenance.create(
                dispatcher, DispatchFixture.fastMaintenance().recoveryDelay(RECOVERY).build()));
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  /**
   * Writes one unordered row without handing it to direct dispatch, then sets its {@code
   * deliver_at} to its own {@code created_at} plus {@code lead}; returns that {@code deliver_at}.
   */
  private Instant scheduled(Duration lead) {
    long id =
        fx.store.enqueue(
            fx.dsl,
            NewMessage.builder()
                .transport("memory")
                .destination("reminders")
                .messageType("Reminder")
                .body(new byte[] {1})
                .deliverAt(Instant.now().plus(Duration.ofDays(365)))
                .build());
    var outbox = DSL.table(DSL.name("public", "relayer_outbox"));
    var createdAt = DSL.field(DSL.name("created_at"), OffsetDateTime.class);
    var deliverAt = DSL.field(DSL.name("deliver_at"), OffsetDateTime.class);
    var idField = DSL.field(DSL.name("id"), Long.class);
    return fx.dsl
        .update(outbox)
        .set(
            deliverAt,
            DSL.field(
                "{0} + {1} * interval '1 microsecond'",
                OffsetDateTime.class, createdAt, DSL.val(lead.toNanos() / 1000)))
        .where(idField.eq(id))
        .returning(deliverAt)
        .fetchOne(deliverAt)
        .toInstant();
  }

  private int sweep(Instant at) {
    clock.set(at);
    return maintenance.sweepOnce().sent();
  }

  @Test
  void aRowScheduledOneMicrosecondAfterItWasWrittenGoesOutOnceDueNotAfterTheRecoveryDelay() {
    Instant due = scheduled(Duration.of(1, ChronoUnit.MICROS));

    assertThat(sweep(due.minus(1, ChronoUnit.MICROS))).as("not yet due").isZero();
    assertThat(sweep(due)).as("due exactly now").isEqualTo(1);
    assertThat(memory.deliveries()).hasSize(1);
  }

  @Test
  void aRowScheduledAMinuteAheadGoesOutAtItsDeliverAt() {
    Instant due = scheduled(Duration.ofMinutes(1));

    assertThat(sweep(due.minusMillis(1))).isZero();
    assertThat(sweep(due)).isEqualTo(1);
  }

  @Test
  void aRowScheduledMonthsAheadStaysUntilDueAndThenGoesOut() {
    Instant due = scheduled(Duration.ofDays(90));

    assertThat(sweep(due.minus(RECOVERY).minusSeconds(1))).isZero();
    assertThat(sweep(due.minusSeconds(1))).as("long past the recovery delay").isZero();
    assertThat(sweep(due)).isEqualTo(1);
  }

  @Test
  void aRowDueExactlyWhenItWasWrittenWaitsTheRecoveryDelayForDirectDispatch() {
    Instant due = scheduled(Duration.ZERO);

    assertThat(sweep(due.plus(RECOVERY).minusMillis(1))).as("direct dispatch's turn").isZero();
    assertThat(sweep(due.plus(RECOVERY))).isEqualTo(1);
  }

  @Test
  void aRowDueBeforeItWasWrittenWaitsTheRecoveryDelayForDirectDispatch() {
    Instant due = scheduled(Duration.ofSeconds(-5));
    Instant written = due.plusSeconds(5);

    assertThat(sweep(written.plus(RECOVERY).minusMillis(1))).isZero();
    assertThat(sweep(written.plus(RECOVERY))).isEqualTo(1);
  }

  @Test
  void aScheduledRowHandedToDirectDispatchBeforeItIsDueIsSentByTheSweeperOnceDue() {
    RelayerDispatcher direct =
        RelayerDispatcher.builder(fx.store, fx.dsl)
            .transport(memory)
            .clock(clock)
            .options(DispatchFixture.fastOptions().build())
            .build();
    Instant deliverAt = clock.instant().plusSeconds(30);
    NewMessage reminder =
        NewMessage.builder()
            .transport("memory")
            .destination("reminders")
            .messageType("Reminder")
            .body(new byte[] {2})
            .deliverAt(deliverAt)
            .build();
    try (direct) {
      direct.start();
      fx.app(direct).transaction(tx -> fx.store.enqueue(tx.dsl(), reminder));
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> direct.queuedIds() == 0);
    } // close() waits for the worker that took the hand-off

    assertThat(memory.deliveries()).as("not due at the hand-off").isEmpty();
    assertThat(sweep(deliverAt.minusMillis(1))).isZero();
    assertThat(sweep(deliverAt)).isEqualTo(1);
    assertThat(memory.deliveredIds()).containsExactly(reminder.messageId());
  }

  @Test
  void anOrderedRowScheduledAheadIsSentByItsLaneOnceDue() {
    RelayerLanes lanes = fx.track(RelayerLanes.builder(dispatcher).owner("solo").build());
    Instant deliverAt = clock.instant().plus(Duration.ofDays(2));
    NewMessage ordered =
        NewMessage.builder()
            .transport("memory")
            .destination("orders")
            .messageType("OrderChanged")
            .orderingKey("customer-1")
            .body(new byte[] {3})
            .deliverAt(deliverAt)
            .build();
    fx.store.enqueue(fx.dsl, ordered);
    int lane = dev.relayer.store.Lanes.laneOf("customer-1", fx.store.options().laneCount());

    clock.set(deliverAt.minusMillis(1));
    assertThat(lanes.passOnce(lane).sent()).isZero();
    clock.set(deliverAt);
    assertThat(lanes.passOnce(lane).sent()).isEqualTo(1);
  }
}
