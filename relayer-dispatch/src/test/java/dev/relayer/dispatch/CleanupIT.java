package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.internal.Cleanup;
import dev.relayer.store.LeaseRequest;
import dev.relayer.testkit.transport.InMemoryTransport;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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
  void oneRunDrainsEveryRowPastRetentionInBatchesUntilOneComesBackShort() {
    for (int i = 0; i < 25; i++) {
      deadRows(1, old.plusSeconds(i));
    }
    inboxRecords(23, old);
    deadRows(3, OffsetDateTime.now(ZoneOffset.UTC));
    inboxRecords(4, OffsetDateTime.now(ZoneOffset.UTC));
    long pending = fx.store.enqueue(fx.dsl, message("pending"));

    CleanupResult run =
        maintenance(DispatchFixture.fastMaintenance().cleanupBatchSize(5)).cleanupOnce();

    assertThat(run.deadDeleted()).isEqualTo(25);
    assertThat(run.inboxDeleted()).isEqualTo(23);
    // Dead: five full batches and an empty one; inbox: four full batches and one of three.
    assertThat(run.batches()).isEqualTo(11);
    assertThat(run.drained()).isTrue();
    assertThat(dead()).as("recent dead rows stay").isEqualTo(3);
    assertThat(inbox()).as("recent inbox records stay").isEqualTo(4);
    assertThat(fx.outboxCount()).as("pending rows never expire").isEqualTo(1);
    assertThat(pending).isPositive();
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
                .cleanupBudget(Duration.ofNanos(1)));

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
            fx.store.tryAcquireLease(
                tx.dsl(), new LeaseRequest(Cleanup.LEASE, "someone-else", Duration.ofMinutes(5))));

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
                    .inboxRetention(Retention.infinite()))
            .cleanupOnce();

    assertThat(run.leader()).isTrue();
    assertThat(run.batches()).isZero();
    assertThat(dead()).isEqualTo(5);
    assertThat(inbox()).isEqualTo(5);
    assertThat(fx.store.lease(dsl, Cleanup.LEASE)).isPresent();
  }
}
