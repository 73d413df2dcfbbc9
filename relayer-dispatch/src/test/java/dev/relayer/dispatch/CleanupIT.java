package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.internal.Cleanup;
import dev.relayer.dispatch.internal.LeaseTracker;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Cleanup drains dead rows and inbox records past retention in bounded batches. */
class CleanupIT {

  DispatchFixture fx;
  RelayerDispatcher dispatcher;
  OffsetDateTime old;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture(4);
    dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(InMemoryTransport.named("memory"))
                .options(DispatchFixture.fastOptions().build())
                .build());
    old = OffsetDateTime.now(ZoneOffset.UTC).minusDays(40);
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  /** {@code count} dead rows that failed at {@code failedAt}. */
  private void deadRows(int count, OffsetDateTime failedAt) {
    fx.dsl.execute(
        "insert into public.relayer_outbox_dead"
            + " (id, message_id, transport, destination, message_type, body, created_at,"
            + "  attempts, failed_at, reason)"
            + " select coalesce((select max(id) from public.relayer_outbox_dead), 0) + g,"
            + "  gen_random_uuid(), 'memory', 'd', 'T', '\\x00'::bytea, {0}, 3, {0}, 'max-attempts'"
            + " from generate_series(1, {1}) g",
        DSL.val(failedAt), DSL.val(count));
  }

  /** {@code count} inbox records processed at {@code processedAt}. */
  private void inboxRecords(int count, OffsetDateTime processedAt) {
    fx.dsl.execute(
        "insert into public.relayer_inbox (consumer, message_id, processed_at)"
            + " select 'billing', gen_random_uuid(), {0} from generate_series(1, {1})",
        DSL.val(processedAt), DSL.val(count));
  }

  private int dead() {
    return fx.dsl.fetchCount(DSL.table(DSL.name("public", "relayer_outbox_dead")));
  }

  private int inbox() {
    return fx.dsl.fetchCount(DSL.table(DSL.name("public", "relayer_inbox")));
  }

  private RelayerMaintenance maintenance(MaintenanceOptions.Builder options) {
    return fx.track(RelayerMaintenance.create(dispatcher, options.build()));
  }

  @Test
  void oneRunDrainsEveryRowPastRetentionInBatchesUntilOneReachesTheCutoff() {
    for (int i = 0; i < 25; i++) {
      deadRows(1, old.plusSeconds(i));
    }
    inboxRecords(23, old);
    deadRows(3, OffsetDateTime.now(ZoneOffset.UTC));
    inboxRecords(4, OffsetDateTime.now(ZoneOffset.UTC));
    long pending = fx.store.enqueue(fx.dsl, message("pending"));

    CleanupResult run =
        maintenance(
                DispatchFixture.fastMaintenance()
                    .cleanupBatchSize(5)
                    .idempotencyKeyRetention(Retention.infinite()))
            .cleanupOnce();

    assertThat(run.deadDeleted()).isEqualTo(25);
    assertThat(run.inboxDeleted()).isEqualTo(23);
    // Dead: five batches of five, the last reaching the cutoff; inbox: four batches of five and
    // one of three.
    assertThat(run.batches()).isEqualTo(10);
    assertThat(run.drained()).isTrue();
    assertThat(dead()).as("recent dead rows stay").isEqualTo(3);
    assertThat(inbox()).as("recent inbox records stay").isEqualTo(4);
    assertThat(fx.outboxCount()).as("pending rows never expire").isEqualTo(1);
    assertThat(pending).isPositive();
  }

  @Test
  void aPoolWhoseConnectionsDoNotAutoCommitKeepsWhatEveryBatchDeleted() {
    deadRows(7, old);
    inboxRecords(7, old);
    RelayerDispatcher onManual = fx.dispatcherOnOwnPool(2, false);
    RelayerMaintenance maintenance =
        fx.track(
            RelayerMaintenance.create(
                onManual,
                DispatchFixture.fastMaintenance()
                    .cleanupBatchSize(2)
                    .leaseDuration(Duration.ofMinutes(10))
                    .build()));

    CleanupResult run = maintenance.cleanupOnce();

    // Only the first batch takes the lease in a transaction; the others run between, and a pool
    // that hands out connections in a transaction rolls back what such a batch left uncommitted.
    assertThat(run.batches()).isGreaterThan(2);
    assertThat(run.deadDeleted() + run.inboxDeleted()).isEqualTo(14);
    assertThat(dead()).as("dead rows left").isZero();
    assertThat(inbox()).as("inbox records left").isZero();
  }

  @Test
  void rowsSharingOneTimestampAcrossBatchBoundariesAreAllDeleted() {
    deadRows(7, old);
    inboxRecords(7, old);
    deadRows(2, old.plusSeconds(1));

    CleanupResult run =
        maintenance(DispatchFixture.fastMaintenance().cleanupBatchSize(3)).cleanupOnce();

    assertThat(run.deadDeleted()).isEqualTo(9);
    assertThat(run.inboxDeleted()).isEqualTo(7);
    assertThat(dead()).isZero();
    assertThat(inbox()).isZero();
  }

  @Test
  void aRunThatUsedUpItsBudgetStopsAfterTheBatchInFlightAndTheNextRunGoesOn() {
    deadRows(10, old);
    inboxRecords(10, old);
    RelayerMaintenance maintenance =
        maintenance(
            DispatchFixture.fastMaintenance()
                .cleanupBatchSize(2)
                .cleanupBudget(Duration.ofNanos(1))
                .idempotencyKeyRetention(Retention.infinite()));

    CleanupResult first = maintenance.cleanupOnce();

    assertThat(first.deadDeleted()).isEqualTo(2);
    assertThat(first.inboxDeleted()).isEqualTo(2);
    assertThat(first.batches()).isEqualTo(2);
    assertThat(first.drained()).isFalse();
    assertThat(dead()).isEqualTo(8);
    CleanupResult second = maintenance.cleanupOnce();
    assertThat(second.deadDeleted()).isEqualTo(2);
    assertThat(dead()).isEqualTo(6);
    assertThat(inbox()).isEqualTo(6);
  }

  @Test
  void theLoopRunsCleanupAgainAfterTheNextSweepUntilARunDrains() {
    deadRows(40, old);
    inboxRecords(30, old);
    RelayerMaintenance maintenance =
        maintenance(
            DispatchFixture.fastMaintenance()
                .cleanupBatchSize(3)
                .cleanupBudget(Duration.ofNanos(1))
                .cleanupInterval(Duration.ofHours(1)));

    maintenance.start();

    // With a one-hour interval, only runs that follow a run ended on its budget can get there.
    await().atMost(Duration.ofSeconds(30)).until(() -> dead() == 0 && inbox() == 0);
  }

  @Test
  void anotherOwnersLeaseKeepsThisInstanceFromDeletingAnything() {
    deadRows(5, old);
    fx.dsl.transaction(
        tx ->
            fx.passes
                .leases()
                .tryAcquire(
                    tx.dsl(),
                    new LeaseRequest(Cleanup.LEASE, "someone-else", Duration.ofMinutes(5))));

    CleanupResult run = maintenance(DispatchFixture.fastMaintenance()).cleanupOnce();

    assertThat(run.leader()).isFalse();
    assertThat(run.deadDeleted()).isZero();
    assertThat(run.drained()).isFalse();
    assertThat(dead()).isEqualTo(5);
  }

  @Test
  void infiniteRetentionKeepsEverythingAndStillTakesTheLease() {
    deadRows(5, old.minusYears(10));
    inboxRecords(5, old.minusYears(10));
    DSLContext dsl = fx.dsl;

    CleanupResult run =
        maintenance(
                DispatchFixture.fastMaintenance()
                    .deadRetention(Retention.infinite())
                    .inboxRetention(Retention.infinite())
                    .idempotencyKeyRetention(Retention.infinite()))
            .cleanupOnce();

    assertThat(run.leader()).isTrue();
    assertThat(run.batches()).isZero();
    assertThat(dead()).isEqualTo(5);
    assertThat(inbox()).isEqualTo(5);
    assertThat(HealthReads.of(fx.store).lease(dsl, Cleanup.LEASE)).isPresent();
  }

  /** Cleanup over the fixture's store with {@code nanoTime} timing its batches and pauses. */
  private Cleanup cleanup(int batchSize, Duration budget, double pauseFactor, LongSupplier nanos) {
    return new Cleanup(
        fx.store,
        new Cleanup.Settings(
            "pacing-test",
            batchSize,
            budget,
            pauseFactor,
            Duration.ofSeconds(30),
            Optional.of(Duration.ofDays(30)),
            Optional.of(Duration.ofDays(7)),
            // The idempotency keys' drain has its own test; these count dead and inbox batches.
            Optional.empty()),
        new LeaseTracker(fx.store.displayName(), dispatcher.delivery().events()),
        nanos);
  }

  /**
   * A monotonic clock that moves {@code step} each time it is read: a run reads it when it starts,
   * after each batch and after each pause, so that every batch takes one step.
   */
  private static LongSupplier stepping(Duration step) {
    AtomicLong now = new AtomicLong();
    return () -> now.addAndGet(step.toNanos());
  }

  @Test
  void aPauseFactorWaitsThatMultipleOfEachBatchsTimeBetweenBatchesAndNotAfterTheLast() {
    deadRows(4, old);
    inboxRecords(5, old);
    List<Duration> pauses = new ArrayList<>();
    Cleanup cleanup = cleanup(2, Duration.ofHours(1), 1.5, stepping(Duration.ofMillis(10)));

    CleanupResult run =
        cleanup.pass(fx.dsl, Instant.now(), () -> false, pause -> pauses.add(pause));

    assertThat(run.deadDeleted()).isEqualTo(4);
    assertThat(run.inboxDeleted()).isEqualTo(5);
    assertThat(run.drained()).isTrue();
    // Dead: 2, 2 (to the cutoff); inbox: 2, 2, 1 (to the cutoff): five batches, a pause after
    // each but the last.
    assertThat(run.batches()).isEqualTo(5);
    assertThat(pauses).hasSize(4).containsOnly(Duration.ofMillis(15));
    assertThat(dead()).isZero();
    assertThat(inbox()).isZero();
  }

  @Test
  void withoutAPauseFactorBatchesRunBackToBack() {
    deadRows(4, old);
    List<Duration> pauses = new ArrayList<>();
    Cleanup cleanup = cleanup(2, Duration.ofHours(1), 0, stepping(Duration.ofMillis(10)));

    CleanupResult run = cleanup.pass(fx.dsl, Instant.now(), () -> false, pauses::add);

    assertThat(run.deadDeleted()).isEqualTo(4);
    assertThat(run.drained()).isTrue();
    assertThat(pauses).isEmpty();
  }

  @Test
  void pausesCountTowardsTheBudgetAndTheLastOneIsCutToWhatIsLeftOfIt() {
    deadRows(20, old);
    List<Duration> pauses = new ArrayList<>();
    Cleanup cleanup = cleanup(2, Duration.ofMillis(100), 4, stepping(Duration.ofMillis(10)));

    CleanupResult run = cleanup.pass(fx.dsl, Instant.now(), () -> false, pauses::add);

    // Start at 10 ms, deadline 110. Round 1: dead batch to 20, pause 40, to 30; the empty inbox's
    // batch to 40, pause 40, to 50. Dead batches then end at 60 (pause 40), 80 (pause 30, what is
    // left before 110) and 100 (pause 10); at 110 the budget is spent.
    assertThat(pauses)
        .containsExactly(
            Duration.ofMillis(40),
            Duration.ofMillis(40),
            Duration.ofMillis(40),
            Duration.ofMillis(30),
            Duration.ofMillis(10));
    assertThat(run.deadDeleted()).isEqualTo(8);
    assertThat(run.batches()).isEqualTo(5);
    assertThat(run.drained()).isFalse();
    assertThat(dead()).isEqualTo(12);
  }

  @Test
  void aRunTakesTheLeaseAtItsFirstBatchAndAgainEachQuarterOfTheLeaseDurationNotEveryBatch() {
    for (int i = 0; i < 20; i++) {
      deadRows(1, old.plusSeconds(i));
    }
    // Every write of the cleanup lease row, counted by the database itself.
    fx.dsl.execute("create table lease_writes (expires_at timestamptz not null)");
    fx.dsl.execute(
        "create function count_lease_write() returns trigger language plpgsql as"
            + " $$ begin insert into lease_writes values (new.expires_at); return new; end $$");
    fx.dsl.execute(
        "create trigger count_lease_writes after insert or update on public.relayer_leases"
            + " for each row when (new.name = 'cleanup') execute function count_lease_write()");
    // Lease 30 s: taken again once 7.5 s have passed. Each batch takes 2 s on this clock.
    Cleanup cleanup = cleanup(2, Duration.ofHours(1), 0, stepping(Duration.ofSeconds(2)));

    CleanupResult run = cleanup.pass(fx.dsl, Instant.now(), () -> false, pause -> true);

    assertThat(run.deadDeleted()).isEqualTo(20);
    assertThat(run.drained()).isTrue();
    // Ten dead batches and the empty inbox's one start at 2, 4, … 22 s: the lease is taken at
    // 2, 10 and 18 s.
    assertThat(run.batches()).isEqualTo(11);
    assertThat(fx.dsl.fetchCount(DSL.table("lease_writes"))).isEqualTo(3);
    assertThat(HealthReads.of(fx.store).lease(fx.dsl, Cleanup.LEASE))
        .hasValueSatisfying(lease -> assertThat(lease.owner()).isEqualTo("pacing-test"));
  }

  @Test
  void theRunAfterAnUnfinishedOneGoesOnWhereItStoppedAndTheRunAfterADrainStartsAtTheOldestRow() {
    for (int i = 0; i < 6; i++) {
      inboxRecords(1, old.plusSeconds(i));
    }
    Cleanup cleanup = cleanup(2, Duration.ofHours(1), 0, stepping(Duration.ofMillis(10)));

    CleanupResult stopped = cleanup.pass(fx.dsl, Instant.now(), () -> true, pause -> true);
    assertThat(stopped.inboxDeleted()).isEqualTo(2);
    assertThat(stopped.drained()).isFalse();
    // Written behind the place the first run got to: the run that goes on from there passes it.
    inboxRecords(1, old.minusHours(1));

    CleanupResult resumed = cleanup.pass(fx.dsl, Instant.now(), () -> false, pause -> true);
    assertThat(resumed.inboxDeleted()).isEqualTo(4);
    assertThat(resumed.drained()).isTrue();
    assertThat(inbox()).isEqualTo(1);

    CleanupResult fresh = cleanup.pass(fx.dsl, Instant.now(), () -> false, pause -> true);
    assertThat(fresh.inboxDeleted())
        .as("a drain that finished leaves nothing to go on from")
        .isOne();
    assertThat(inbox()).isZero();
  }

  @Test
  void aTableDoneInARunThatLeftTheOtherUnfinishedGoesOnFromWhereItEndedUntilARunDrainsBoth() {
    for (int i = 0; i < 5; i++) {
      deadRows(1, old.plusSeconds(i));
    }
    for (int i = 0; i < 12; i++) {
      inboxRecords(1, old.plusSeconds(i));
    }
    Cleanup cleanup = cleanup(2, Duration.ofHours(1), 0, stepping(Duration.ofMillis(10)));
    AtomicLong rounds = new AtomicLong();

    // Three rounds: the dead table drains in its third batch, the inbox has six records left.
    CleanupResult stopped =
        cleanup.pass(fx.dsl, Instant.now(), () -> rounds.incrementAndGet() >= 3, pause -> true);
    assertThat(stopped.deadDeleted()).isEqualTo(5);
    assertThat(stopped.inboxDeleted()).isEqualTo(6);
    assertThat(stopped.drained()).isFalse();
    deadRows(1, old.minusHours(1));
    deadRows(1, old.plusSeconds(30));

    CleanupResult resumed = cleanup.pass(fx.dsl, Instant.now(), () -> false, pause -> true);
    assertThat(resumed.deadDeleted())
        .as("the dead table goes on from where its drain ended, past the row written behind it")
        .isOne();
    assertThat(resumed.inboxDeleted()).isEqualTo(6);
    assertThat(resumed.drained()).isTrue();
    assertThat(dead()).isOne();

    CleanupResult fresh = cleanup.pass(fx.dsl, Instant.now(), () -> false, pause -> true);
    assertThat(fresh.deadDeleted())
        .as("a run that drained both leaves nothing to go on from")
        .isOne();
    assertThat(dead()).isZero();
  }

  @Test
  void aPauseThatReportsStopEndsTheRunAfterTheBatchBeforeIt() {
    deadRows(10, old);
    Cleanup cleanup = cleanup(2, Duration.ofHours(1), 1, stepping(Duration.ofMillis(10)));

    CleanupResult run = cleanup.pass(fx.dsl, Instant.now(), () -> false, pause -> false);

    assertThat(run.deadDeleted()).isEqualTo(2);
    assertThat(run.batches()).isEqualTo(1);
    assertThat(run.drained()).isFalse();
    assertThat(dead()).isEqualTo(8);
  }

  @Test
  void closingMaintenanceEndsACleanupPauseOfTheLoopAndNoFurtherBatchRuns() throws Exception {
    deadRows(10, old);
    RelayerMaintenance maintenance =
        RelayerMaintenance.create(
            dispatcher,
            DispatchFixture.fastMaintenance()
                .cleanupBatchSize(2)
                .cleanupBudget(Duration.ofHours(1))
                // Each pause a hundred times its batch: the loop is in one when close() comes.
                .cleanupPauseFactor(100)
                .shutdownTimeout(Duration.ofMinutes(5))
                .build());
    maintenance.start();
    await()
        .pollInterval(Duration.ofMillis(2))
        .atMost(Duration.ofSeconds(30))
        .until(() -> dead() < 10);

    maintenance.close();

    assertThat(dead()).as("the run ended in the pause after its first batch").isEqualTo(8);
  }
}
