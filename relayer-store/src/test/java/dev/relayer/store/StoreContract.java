package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_INBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_LEASES;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX_DEAD;
import static dev.relayer.store.StoreFixture.ordered;
import static dev.relayer.store.StoreFixture.scheduled;
import static dev.relayer.store.StoreFixture.unordered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.InvalidInputException;
import dev.relayer.jooq.generated.tables.records.RelayerOutboxRecord;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.health.Backlog;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.health.LeaseState;
import dev.relayer.store.internal.ErrorFingerprint;
import dev.relayer.store.internal.HeadersJson;
import dev.relayer.store.internal.OutboxSql;
import dev.relayer.store.internal.StoreDsl;
import dev.relayer.store.ops.ParkedKey;
import dev.relayer.store.ops.StoreOperations;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.store.pass.ClaimPage;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.DeadLetter;
import dev.relayer.store.pass.FailedSend;
import dev.relayer.store.pass.LeaseOutcome;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.PurgeBatch;
import dev.relayer.store.pass.Purged;
import dev.relayer.store.pass.SweepBounds;
import dev.relayer.store.pass.TestPassSql;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every store operation against a real PostgreSQL, run once per schema configuration by the
 * subclasses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StoreContract {

  private static final Duration CLAIM = Duration.ofSeconds(30);

  StoreFixture fx;
  RelayerStore store;
  DSLContext dsl;
  DSLContext mapped;

  abstract SchemaOptions schema();

  @BeforeAll
  void createDatabase() {
    fx = new StoreFixture(schema());
    store = fx.store;
    dsl = fx.dsl;
    mapped = new StoreDsl(schema()).map(dsl);
  }

  @AfterAll
  void dropDatabase() {
    fx.close();
  }

  @BeforeEach
  void emptyTables() {
    mapped.deleteFrom(RELAYER_OUTBOX).execute();
    mapped.deleteFrom(RELAYER_OUTBOX_DEAD).execute();
    mapped.deleteFrom(RELAYER_INBOX).execute();
    mapped.deleteFrom(RELAYER_LEASES).execute();
  }

  private RelayerOutboxRecord row(long id) {
    return mapped.selectFrom(RELAYER_OUTBOX).where(RELAYER_OUTBOX.ID.eq(id)).fetchOne();
  }

  private int outboxCount() {
    return mapped.fetchCount(RELAYER_OUTBOX);
  }

  private Instant now() {
    return Instant.now().truncatedTo(ChronoUnit.MICROS);
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void enqueueWritesEveryColumnAndReturnsIdsInInputOrder() {
    Instant later = now().plusSeconds(3600);
    NewMessage first =
        NewMessage.builder()
            .transport("rabbit")
            .destination("orders/created")
            .messageType("OrderPlaced")
            .header("traceparent", "00-abc-def-01")
            .header("quote\"and\\slash", "line\nbreak é")
            .body(new byte[] {0, 1, 2, (byte) 255})
            .tenantId("tenant-7")
            .deliverAt(later)
            .build();
    NewMessage second = ordered("customer-42");
    List<Long> ids = dsl.transactionResult(c -> store.enqueue(c.dsl(), List.of(first, second)));

    assertThat(ids).hasSize(2);
    assertThat(ids.get(0)).isLessThan(ids.get(1));
    RelayerOutboxRecord a = row(ids.get(0));
    assertThat(a.getMessageId()).isEqualTo(first.messageId());
    assertThat(a.getTransport()).isEqualTo("rabbit");
    assertThat(a.getDestination()).isEqualTo("orders/created");
    assertThat(a.getMessageType()).isEqualTo("OrderPlaced");
    assertThat(HeadersJson.read(a.getHeaders())).isEqualTo(first.headers());
    assertThat(a.getBody()).containsExactly(0, 1, 2, 255);
    assertThat(a.getTenantId()).isEqualTo("tenant-7");
    assertThat(a.getDeliverAt().toInstant()).isEqualTo(later);
    assertThat(a.getLane()).isNull();
    assertThat(a.getOrderingKey()).isNull();
    assertThat(a.getAttempts()).isZero();
    assertThat(a.getStatus()).isEqualTo("pending");
    RelayerOutboxRecord b = row(ids.get(1));
    assertThat(b.getOrderingKey()).isEqualTo("customer-42");
    assertThat(b.getLane()).isEqualTo(Lanes.laneOf("customer-42", StoreOptions.DEFAULT_LANES));
  }

  @Test
  void enqueueRejectsBadMessagesBeforeTouchingTheDatabase() {
    assertThatThrownBy(
            () -> NewMessage.builder().transport(" ").destination("d").body(new byte[0]).build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("transport must not be blank")
        .hasMessageContaining("messageType must not be blank");
    assertThatThrownBy(() -> StoreFixture.message().messageId(new UUID(0, 0)).build())
        .hasMessageContaining("nil UUID");
    assertThatThrownBy(() -> StoreFixture.message().header("x", null).build())
        .hasMessageContaining("header 'x'");
    List<NewMessage> withNull = new ArrayList<>();
    withNull.add(unordered());
    withNull.add(null);
    assertThatThrownBy(() -> store.enqueue(dsl, withNull))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("messages[1]");
    assertThat(outboxCount()).isZero();
  }

  @Test
  void enqueueTellsListenersWhichRowsAreUnorderedAndWhichLanesHaveOrderedOnes() {
    List<List<Long>> seen = new ArrayList<>();
    List<Set<Integer>> lanes = new ArrayList<>();
    EnqueueListener listener =
        (configuration, unorderedIds, orderedLanes) -> {
          seen.add(unorderedIds);
          lanes.add(orderedLanes);
        };
    StoreAttachment attached = store.attach(listener);
    try {
      List<Long> ids =
          dsl.transactionResult(
              c -> store.enqueue(c.dsl(), List.of(unordered(), ordered("k1"), unordered())));
      assertThat(seen).containsExactly(List.of(ids.get(0), ids.get(2)));
      assertThat(lanes).containsExactly(Set.of(Lanes.laneOf("k1", StoreOptions.DEFAULT_LANES)));
    } finally {
      attached.close();
    }
  }

  /** A hook of several kinds is attached as each of them and detached from all by one close. */
  private static final class HeaderAndEvents implements HeaderContributor, StoreEventListener {
    final List<Integer> enqueued = new ArrayList<>();

    @Override
    public Map<String, String> headers(NewMessage message) {
      return Map.of("x-both", "yes");
    }

    @Override
    public void enqueued(int messages, Duration duration) {
      enqueued.add(messages);
    }
  }

  @Test
  void aHookOfTwoKindsIsAttachedAsBothAndOneCloseDetachesBoth() {
    HeaderAndEvents hook = new HeaderAndEvents();
    StoreAttachment attached = store.attach(hook);
    long first = store.enqueue(dsl, unordered());
    attached.close();
    attached.close();
    long second = store.enqueue(dsl, unordered());

    assertThat(hook.enqueued).as("enqueues the listener heard").containsExactly(1);
    assertThat(HeadersJson.read(row(first).getHeaders())).containsEntry("x-both", "yes");
    assertThat(HeadersJson.read(row(second).getHeaders())).doesNotContainKey("x-both");
  }

  @Test
  void enqueueRefusesWhatAnEnqueueCheckReportsAndWritesNothingEvenOnAutocommit() {
    EnqueueCheck check =
        message ->
            message.destination().startsWith("bad")
                ? List.of("destination '" + message.destination() + "' is refused")
                : List.of();
    StoreAttachment attached = store.attach(check);
    try {
      NewMessage bad = StoreFixture.message().destination("bad.one").build();
      // dsl is on autocommit: a statement run before the check would stay.
      assertThatThrownBy(
              () -> store.enqueue(dsl, List.of(unordered(), bad, ordered("k1"), bad, unordered())))
          .isInstanceOfSatisfying(
              InvalidInputException.class,
              e ->
                  assertThat(e.problems())
                      .containsExactly(
                          "messages[1]: destination 'bad.one' is refused",
                          "messages[3]: destination 'bad.one' is refused"));
      assertThatThrownBy(() -> store.enqueue(dsl, bad))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("destination 'bad.one' is refused");
      assertThat(outboxCount()).isZero();
      store.enqueue(dsl, unordered());
      assertThat(outboxCount()).isEqualTo(1);
    } finally {
      attached.close();
    }
    store.enqueue(dsl, StoreFixture.message().destination("bad.two").build());
    assertThat(outboxCount()).as("a removed check no longer runs").isEqualTo(2);
  }

  @Test
  void headerContributorsAddHeadersBeforeTheInsertAndNeverReplaceTheMessagesOwn() {
    HeaderContributor context =
        message -> Map.of("traceparent", "00-contributed-01", "x-added", message.destination());
    StoreAttachment attached = store.attach(context);
    try {
      NewMessage plain =
          NewMessage.builder()
              .transport("memory")
              .destination("plain")
              .messageType("OrderPlaced")
              .header("x-own", "kept")
              .body(new byte[] {1})
              .build();
      NewMessage own = StoreFixture.message().header("traceparent", "00-own-01").build();
      List<Long> ids = dsl.transactionResult(c -> store.enqueue(c.dsl(), List.of(plain, own)));
      assertThat(HeadersJson.read(row(ids.get(0)).getHeaders()))
          .containsEntry("traceparent", "00-contributed-01")
          .containsEntry("x-added", "plain")
          .containsAllEntriesOf(plain.headers());
      assertThat(HeadersJson.read(row(ids.get(1)).getHeaders()))
          .as("the message's own traceparent is kept")
          .containsEntry("traceparent", "00-own-01")
          .containsEntry("x-added", own.destination());
    } finally {
      attached.close();
    }
    long id = store.enqueue(dsl, unordered());
    assertThat(HeadersJson.read(row(id).getHeaders()))
        .as("a removed contributor no longer runs")
        .doesNotContainKey("x-added");
  }

  @Test
  void contributedHeadersAreCheckedLikeTheMessagesOwn() {
    HeaderContributor contributor = message -> Map.of("x-bad", "nul\0");
    EnqueueCheck check =
        message ->
            message.headers().containsKey("x-checked")
                ? List.of("header 'x-checked' is refused")
                : List.of();
    StoreAttachment attached = store.attach(contributor);
    try {
      assertThatThrownBy(() -> store.enqueue(dsl, unordered()))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("header 'x-bad' value");
    } finally {
      attached.close();
    }
    HeaderContributor checked = message -> Map.of("x-checked", "yes");
    StoreAttachment contributed = store.attach(checked);
    StoreAttachment checking = store.attach(check);
    try {
      assertThatThrownBy(() -> store.enqueue(dsl, unordered()))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("header 'x-checked' is refused");
    } finally {
      checking.close();
      contributed.close();
    }
    assertThat(outboxCount()).isZero();
  }

  @Test
  void claimByIdsTakesOnlyEligibleUnorderedRows() {
    Instant now = now();
    long due = store.enqueue(dsl, unordered());
    long future = store.enqueue(dsl, scheduled(now.plusSeconds(60)));
    long dueExactlyNow = store.enqueue(dsl, scheduled(now));
    long orderedRow = store.enqueue(dsl, ordered("k"));

    Claim claim =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(
                dsl, new ClaimByIds(List.of(due, future, dueExactlyNow, orderedRow), now, CLAIM));

    assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactly(due, dueExactlyNow);
    assertThat(claim.messages()).allSatisfy(m -> assertThat(m.attempts()).isEqualTo(1));
    RelayerOutboxRecord claimed = row(due);
    assertThat(claimed.getClaimToken()).isEqualTo(claim.token());
    assertThat(claimed.getClaimExpiresAt().toInstant()).isEqualTo(now.plus(CLAIM));
    assertThat(claimed.getAttempts()).isEqualTo(1);

    Claim again =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(dsl, new ClaimByIds(List.of(due), now.plusSeconds(1), CLAIM));
    assertThat(again.isEmpty()).as("a live claim is not claimed twice").isTrue();

    Claim afterExpiry =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(dsl, new ClaimByIds(List.of(due), now.plus(CLAIM), CLAIM));
    assertThat(afterExpiry.messages()).extracting(ClaimedMessage::attempts).containsExactly(2);
    assertThat(afterExpiry.token()).isNotEqualTo(claim.token());
  }

  @Test
  void claimPageWalksUnorderedRowsByKeysetWithinBoundsAndAge() {
    Instant now = now();
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      ids.add(store.enqueue(dsl, unordered()));
    }
    store.enqueue(dsl, ordered("k"));
    long upTo = TestPassSql.of(store).outbox().sweepBounds(dsl, 0).highest().orElseThrow();
    assertThat(upTo).isEqualTo(ids.get(6));
    long late = store.enqueue(dsl, unordered());

    // Rows written before now + 60 s are old enough: the enqueues above may take seconds on a
    // loaded machine.
    Claim first =
        TestPassSql.of(store)
            .outbox()
            .claimPage(dsl, new ClaimPage(0, upTo, now.plusSeconds(60), 3, now, CLAIM));
    assertThat(first.messages())
        .extracting(ClaimedMessage::id)
        .containsExactlyElementsOf(ids.subList(0, 3));
    Claim second =
        TestPassSql.of(store)
            .outbox()
            .claimPage(dsl, new ClaimPage(ids.get(2), upTo, now.plusSeconds(60), 10, now, CLAIM));
    assertThat(second.messages())
        .extracting(ClaimedMessage::id)
        .containsExactlyElementsOf(ids.subList(3, 7));
    assertThat(second.messages()).extracting(ClaimedMessage::id).doesNotContain(late);

    Claim tooYoung =
        TestPassSql.of(store)
            .outbox()
            .claimPage(
                dsl, new ClaimPage(upTo, Long.MAX_VALUE, now.minusSeconds(60), 10, now, CLAIM));
    assertThat(tooYoung.isEmpty()).as("rows younger than the recovery delay stay").isTrue();
  }

  @Test
  void sweepBoundsReadTheLowestPendingIdAboveTheFloorAndTheWritersStillRunning() throws Exception {
    List<Long> ids = store.enqueue(dsl, List.of(unordered(), unordered(), unordered()));
    store.enqueue(dsl, ordered("k"));
    SweepBounds all = TestPassSql.of(store).outbox().sweepBounds(dsl, 0);
    assertThat(all.lowest()).hasValue(ids.get(0));
    assertThat(all.highest()).hasValue(ids.get(2));
    SweepBounds aboveFirst = TestPassSql.of(store).outbox().sweepBounds(dsl, ids.get(0));
    assertThat(aboveFirst.lowest()).hasValue(ids.get(1));
    SweepBounds aboveAll = TestPassSql.of(store).outbox().sweepBounds(dsl, ids.get(2));
    assertThat(aboveAll.lowest()).isEmpty();
    assertThat(aboveAll.highest()).isEmpty();

    try (Connection writer = fx.connect()) {
      writer.setAutoCommit(false);
      DSLContext open = fx.open(writer);
      long uncommitted = store.enqueue(open, unordered());
      long writerXid =
          open.fetchSingle("select pg_current_xact_id()::text::bigint").into(Long.class);
      long committed = store.enqueue(dsl, unordered());
      SweepBounds whileWriting = TestPassSql.of(store).outbox().sweepBounds(dsl, ids.get(2));
      assertThat(whileWriting.lowest())
          .as("the writer's row is not visible yet, the later one is")
          .hasValue(committed);
      assertThat(uncommitted).isLessThan(committed);
      assertThat(whileWriting.oldestRunningXid()).isLessThanOrEqualTo(writerXid);
      assertThat(whileWriting.snapshotXmax()).isGreaterThan(writerXid);
      writer.commit();
      SweepBounds after = TestPassSql.of(store).outbox().sweepBounds(dsl, ids.get(2));
      assertThat(after.lowest()).hasValue(uncommitted);
      // Another session of the server may still run a transaction older than the writer's.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  TestPassSql.of(store).outbox().sweepBounds(dsl, 0).oldestRunningXid()
                      > writerXid);
    }
  }

  @Test
  void claimSkipsRowsLockedByAnotherTransaction() throws Exception {
    long locked = store.enqueue(dsl, unordered());
    long free = store.enqueue(dsl, unordered());
    try (Connection holder = fx.connect()) {
      holder.setAutoCommit(false);
      DSLContext other = fx.open(holder);
      new StoreDsl(schema())
          .map(other)
          .selectFrom(RELAYER_OUTBOX)
          .where(RELAYER_OUTBOX.ID.eq(locked))
          .forUpdate()
          .fetch();
      Claim claim =
          TestPassSql.of(store)
              .outbox()
              .claimByIds(dsl, new ClaimByIds(List.of(locked, free), now(), CLAIM));
      assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactly(free);
      holder.rollback();
    }
    assertThat(row(locked).getClaimToken()).isNull();
  }

  @Test
  void aBatchMixingOptionalValuesWritesEachRowsOwn() {
    Instant later = now().plusSeconds(600);
    NewMessage plain = unordered();
    NewMessage keyed = ordered("customer-7");
    NewMessage timed = scheduled(later);
    NewMessage tenant = StoreFixture.message().tenantId("tenant-3").build();
    List<Long> ids = store.enqueue(dsl, List.of(plain, keyed, timed, tenant));
    List<Long> plainOnly = store.enqueue(dsl, List.of(unordered(), unordered()));

    RelayerOutboxRecord p = row(ids.get(0));
    assertThat(p.getMessageId()).isEqualTo(plain.messageId());
    assertThat(p.getOrderingKey()).isNull();
    assertThat(p.getLane()).isNull();
    assertThat(p.getDeliverAt()).isNull();
    assertThat(p.getTenantId()).isNull();
    RelayerOutboxRecord k = row(ids.get(1));
    assertThat(k.getOrderingKey()).isEqualTo("customer-7");
    assertThat(k.getLane()).isEqualTo(Lanes.laneOf("customer-7", store.options().laneCount()));
    assertThat(k.getDeliverAt()).isNull();
    assertThat(row(ids.get(2)).getDeliverAt().toInstant()).isEqualTo(later);
    assertThat(row(ids.get(2)).getTenantId()).isNull();
    assertThat(row(ids.get(3)).getTenantId()).isEqualTo("tenant-3");
    assertThat(row(ids.get(3)).getLane()).isNull();
    assertThat(plainOnly).hasSize(2).allMatch(id -> id > ids.get(3));
    RelayerOutboxRecord q = row(plainOnly.get(1));
    assertThat(q.getStatus()).isEqualTo("pending");
    assertThat(q.getAttempts()).isZero();
    assertThat(q.getOrderingKey()).isNull();
    assertThat(q.getDeliverAt()).isNull();
    assertThat(q.getTenantId()).isNull();
  }

  @Test
  void aLargeEnqueueReturnsEveryIdInInputOrderAcrossItsInsertStatements() {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      messages.add(i == 120 ? ordered("customer-9") : unordered());
    }
    List<Long> ids = store.enqueue(dsl, messages);

    assertThat(ids).hasSize(250).isSorted().doesNotHaveDuplicates();
    for (int i : List.of(0, 99, 100, 120, 199, 200, 249)) {
      assertThat(row(ids.get(i)).getMessageId()).isEqualTo(messages.get(i).messageId());
    }
    assertThat(row(ids.get(120)).getOrderingKey()).isEqualTo("customer-9");
    assertThat(row(ids.get(121)).getOrderingKey()).isNull();
  }

  @Test
  void lockPageHoldsRowsByLockAloneUntilTheClaimingTransactionEnds() throws Exception {
    Instant now = now();
    long sent = store.enqueue(dsl, unordered());
    long failed = store.enqueue(dsl, unordered());
    long buried = store.enqueue(dsl, unordered());
    long beyond = store.enqueue(dsl, unordered());
    store.enqueue(dsl, ordered("k"));
    Instant retryAt = now.plusSeconds(10);
    try (Connection holder = fx.connect()) {
      holder.setAutoCommit(false);
      DSLContext tx = fx.open(holder);
      Claim.Locked claim =
          TestPassSql.of(store)
              .outbox()
              .lockPage(tx, new ClaimPage(0, buried, now.plusSeconds(1), 10, now, CLAIM));
      assertThat(claim.expiresAt()).isEqualTo(now.plus(CLAIM));
      assertThat(claim.messages())
          .extracting(ClaimedMessage::id)
          .containsExactly(sent, failed, buried);
      assertThat(claim.messages()).extracting(ClaimedMessage::attempts).containsOnly(1);
      RelayerOutboxRecord untouched = row(sent);
      assertThat(untouched.getClaimToken()).as("nothing is written by the lock").isNull();
      assertThat(untouched.getAttempts()).isZero();
      assertThat(
              TestPassSql.of(store)
                  .outbox()
                  .claimByIds(dsl, new ClaimByIds(List.of(sent, beyond), now, CLAIM))
                  .messages())
          .as("other claimers skip the locked rows")
          .extracting(ClaimedMessage::id)
          .containsExactly(beyond);

      assertThat(TestPassSql.of(store).outbox().deleteLocked(tx, claim, List.of(sent)))
          .isEqualTo(1);
      assertThat(TestPassSql.of(store).outbox().stampLocked(tx, claim, List.of(failed, buried)))
          .isEqualTo(2);
      assertThat(
              TestPassSql.of(store)
                  .outbox()
                  .recordFailures(
                      tx,
                      claim.token(),
                      List.of(new FailedSend(failed, "broker said no", retryAt))))
          .isEqualTo(1);
      assertThat(
              TestPassSql.of(store)
                  .outbox()
                  .moveToDead(
                      tx,
                      claim.token(),
                      new DeadLetter(List.of(buried), "max-attempts", "no", now)))
          .isEqualTo(1);
      holder.commit();
    }
    assertThat(row(sent)).isNull();
    RelayerOutboxRecord held = row(failed);
    assertThat(held.getAttempts()).isEqualTo(1);
    assertThat(held.getLastError()).isEqualTo("broker said no");
    assertThat(held.getClaimExpiresAt().toInstant()).isEqualTo(retryAt);
    assertThat(
            mapped
                .selectFrom(RELAYER_OUTBOX_DEAD)
                .where(RELAYER_OUTBOX_DEAD.ID.eq(buried))
                .fetchOne()
                .getAttempts())
        .isEqualTo(1);
  }

  @Test
  void markInFlightMarksOnlyRowsUnderTheTokenAndChargesNothing() {
    Instant now = now();
    long first = store.enqueue(dsl, unordered());
    long second = store.enqueue(dsl, unordered());
    long foreign = store.enqueue(dsl, unordered());
    Claim claim =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(dsl, new ClaimByIds(List.of(first, second), now, CLAIM));
    TestPassSql.of(store).outbox().claimByIds(dsl, new ClaimByIds(List.of(foreign), now, CLAIM));
    mapped
        .update(RELAYER_OUTBOX)
        .setNull(RELAYER_OUTBOX.LAST_ERROR)
        .where(RELAYER_OUTBOX.ID.in(first, second, foreign))
        .execute();

    assertThat(TestPassSql.of(store).outbox().markInFlight(dsl, claim.token(), List.of(first)))
        .isEqualTo(1);
    assertThat(
            TestPassSql.of(store)
                .outbox()
                .markInFlight(dsl, claim.token(), List.of(second, foreign)))
        .as("the foreign row is under another token")
        .isEqualTo(1);

    assertThat(row(first).getLastError()).isEqualTo(ClaimedMessage.IN_FLIGHT);
    assertThat(row(first).getAttempts()).isEqualTo(1);
    assertThat(row(second).getLastError()).isEqualTo(ClaimedMessage.IN_FLIGHT);
    assertThat(row(second).getAttempts()).isEqualTo(1);
    assertThat(row(foreign).getLastError()).isNull();
    assertThat(row(foreign).getAttempts()).isEqualTo(1);
  }

  @Test
  void aClaimAloneTakesOverTheAttemptOfACrashWithOthersAndCountsACrashAlone() {
    Instant now = now();
    long id = store.enqueue(dsl, unordered());
    // Sent with others, and its sender died: suspect, one attempt on the row.
    TestPassSql.of(store).outbox().claimByIds(dsl, new ClaimByIds(List.of(id), now, CLAIM));
    assertThat(row(id).getLastError()).isEqualTo(ClaimedMessage.IN_FLIGHT);
    assertThat(row(id).getAttempts()).isEqualTo(1);

    Instant later = now.plus(CLAIM).plusSeconds(1);
    Claim alone =
        TestPassSql.of(store).outbox().claimAlone(dsl, new ClaimByIds(List.of(id), later, CLAIM));
    assertThat(alone.messages()).singleElement().satisfies(m -> assertThat(m.attempts()).isOne());
    assertThat(row(id).getLastError()).isEqualTo(ClaimedMessage.SENT_ALONE);
    assertThat(row(id).getAttempts()).as("the crash with others cost nothing").isEqualTo(1);

    // Its sender died again, sending it alone: that crash counts.
    Instant after = later.plus(CLAIM).plusSeconds(1);
    Claim again =
        TestPassSql.of(store).outbox().claimAlone(dsl, new ClaimByIds(List.of(id), after, CLAIM));
    assertThat(again.messages())
        .singleElement()
        .satisfies(m -> assertThat(m.attempts()).isEqualTo(2));
    assertThat(row(id).getAttempts()).isEqualTo(2);
    assertThatThrownBy(
            () ->
                TestPassSql.of(store)
                    .outbox()
                    .claimAlone(dsl, new ClaimByIds(List.of(id, id + 1), now, CLAIM)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exactly one id");
  }

  @Test
  void markSentAloneGivesBackTheAttemptOfARowInFlightWithOthersOnly() {
    Instant now = now();
    long suspect = store.enqueue(dsl, unordered());
    long culprit = store.enqueue(dsl, unordered());
    long foreign = store.enqueue(dsl, unordered());
    Claim claim =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(dsl, new ClaimByIds(List.of(suspect, culprit), now, CLAIM));
    Claim other =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(dsl, new ClaimByIds(List.of(foreign), now, CLAIM));
    mapped
        .update(RELAYER_OUTBOX)
        .set(RELAYER_OUTBOX.LAST_ERROR, ClaimedMessage.SENT_ALONE)
        .set(RELAYER_OUTBOX.ATTEMPTS, 2)
        .where(RELAYER_OUTBOX.ID.eq(culprit))
        .execute();

    assertThat(TestPassSql.of(store).outbox().markSentAlone(dsl, claim.token(), suspect)).isTrue();
    assertThat(TestPassSql.of(store).outbox().markSentAlone(dsl, claim.token(), culprit)).isTrue();
    assertThat(TestPassSql.of(store).outbox().markSentAlone(dsl, claim.token(), foreign))
        .as("the foreign row is under another token")
        .isFalse();

    assertThat(row(suspect).getLastError()).isEqualTo(ClaimedMessage.SENT_ALONE);
    assertThat(row(suspect).getAttempts()).as("its claim's attempt given back").isZero();
    assertThat(row(culprit).getLastError()).isEqualTo(ClaimedMessage.SENT_ALONE);
    assertThat(row(culprit).getAttempts()).as("a crash alone is not given back").isEqualTo(2);
    assertThat(row(foreign).getLastError()).isEqualTo(ClaimedMessage.IN_FLIGHT);
    assertThat(row(foreign).getAttempts()).isEqualTo(1);
    assertThat(other.messages().get(0).lastError()).as("as it was before the claim").isNull();
    // Claimed again after its claim lapsed: it comes back as it was, in flight with others.
    Claim again =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(
                dsl, new ClaimByIds(List.of(foreign), now.plus(CLAIM).plusSeconds(1), CLAIM));
    ClaimedMessage claimed = again.messages().get(0);
    assertThat(claimed.wasInFlight()).isTrue();
    assertThat(claimed.attempts()).isEqualTo(2);
    assertThat(claimed.attemptsWhenSentAlone()).isOne();
  }

  @Test
  void lockPageRolledBackLeavesRowsAsTheyWere() throws Exception {
    Instant now = now();
    long id = store.enqueue(dsl, unordered());
    try (Connection holder = fx.connect()) {
      holder.setAutoCommit(false);
      DSLContext tx = fx.open(holder);
      Claim.Locked claim =
          TestPassSql.of(store)
              .outbox()
              .lockPage(tx, new ClaimPage(0, id, now.plusSeconds(1), 10, now, CLAIM));
      TestPassSql.of(store).outbox().stampLocked(tx, claim, List.of(id));
      holder.rollback();
    }
    RelayerOutboxRecord row = row(id);
    assertThat(row.getClaimToken()).isNull();
    assertThat(row.getAttempts()).isZero();
    assertThat(
            TestPassSql.of(store)
                .outbox()
                .claimByIds(dsl, new ClaimByIds(List.of(id), now, CLAIM))
                .messages())
        .extracting(ClaimedMessage::id)
        .containsExactly(id);
  }

  @Test
  void lockedCompletionRefusesForeignIds() {
    // A stamped claim cannot be given to deleteLocked or stampLocked at all: they take a
    // Claim.Locked.
    Instant now = now();
    long id = store.enqueue(dsl, unordered());
    long other = store.enqueue(dsl, unordered());
    Claim.Locked locked =
        dsl.transactionResult(
            c ->
                TestPassSql.of(store)
                    .outbox()
                    .lockPage(
                        c.dsl(), new ClaimPage(id, other, now.plusSeconds(1), 10, now, CLAIM)));
    assertThatThrownBy(() -> TestPassSql.of(store).outbox().stampLocked(dsl, locked, List.of(id)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("id " + id + " is not in the claim");
    assertThat(outboxCount()).isEqualTo(2);
  }

  @Test
  void twoClaimersNeverClaimTheSameRow() throws Exception {
    List<NewMessage> batch = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      batch.add(unordered());
    }
    List<Long> ids = store.enqueue(dsl, batch);
    long upTo = ids.get(ids.size() - 1);
    Map<Long, Integer> claims = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> workers = new ArrayList<>();
      CountDownLatch start = new CountDownLatch(1);
      for (int w = 0; w < 4; w++) {
        boolean byIds = w % 2 == 0;
        workers.add(
            pool.submit(
                () -> {
                  start.await();
                  while (true) {
                    Claim claim =
                        dsl.transactionResult(
                            c -> {
                              Instant now = Instant.now();
                              if (byIds) {
                                List<Long> shuffled = new ArrayList<>(ids);
                                Collections.shuffle(shuffled);
                                return TestPassSql.of(store)
                                    .outbox()
                                    .claimByIds(
                                        c.dsl(),
                                        new ClaimByIds(shuffled.subList(0, 25), now, CLAIM));
                              }
                              return TestPassSql.of(store)
                                  .outbox()
                                  .claimPage(
                                      c.dsl(),
                                      new ClaimPage(0, upTo, now.plusSeconds(5), 25, now, CLAIM));
                            });
                    claim.messages().forEach(m -> claims.merge(m.id(), 1, Integer::sum));
                    if (claims.size() == ids.size()) {
                      return null;
                    }
                    if (claim.isEmpty() && !byIds) {
                      return null;
                    }
                  }
                }));
      }
      start.countDown();
      for (Future<?> worker : workers) {
        worker.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(claims).hasSize(ids.size());
    assertThat(claims.values()).allMatch(count -> count == 1);
  }

  @Test
  void fencedDeleteWithAStaleTokenDeletesNothing() {
    Instant now = now();
    long id = store.enqueue(dsl, unordered());
    Claim stale =
        TestPassSql.of(store).outbox().claimByIds(dsl, new ClaimByIds(List.of(id), now, CLAIM));
    Claim current =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(dsl, new ClaimByIds(List.of(id), now.plus(CLAIM), CLAIM));

    assertThat(TestPassSql.of(store).outbox().deleteFenced(dsl, stale.token(), List.of(id)))
        .isZero();
    assertThat(outboxCount()).isEqualTo(1);
    assertThat(TestPassSql.of(store).outbox().deleteFenced(dsl, current.token(), List.of(id)))
        .isEqualTo(1);
    assertThat(outboxCount()).isZero();
  }

  @Test
  void recordedFailureHoldsTheRowUntilItsRetryInstant() {
    Instant now = now();
    long id = store.enqueue(dsl, unordered());
    Claim claim =
        TestPassSql.of(store).outbox().claimByIds(dsl, new ClaimByIds(List.of(id), now, CLAIM));
    String longError = "java.io.IOException: " + "x".repeat(5000);
    Instant retryAt = now.plusSeconds(10);

    int recorded =
        TestPassSql.of(store)
            .outbox()
            .recordFailures(dsl, claim.token(), List.of(new FailedSend(id, longError, retryAt)));

    assertThat(recorded).isEqualTo(1);
    RelayerOutboxRecord failed = row(id);
    assertThat(failed.getLastError())
        .hasSize(RelayerStore.MAX_ERROR_LENGTH)
        .startsWith("java.io.IOException");
    assertThat(failed.getClaimExpiresAt().toInstant()).isEqualTo(retryAt);
    assertThat(
            TestPassSql.of(store)
                .outbox()
                .claimByIds(dsl, new ClaimByIds(List.of(id), now.plusSeconds(9), CLAIM))
                .isEmpty())
        .isTrue();
    assertThat(HealthReads.of(store).backlog(dsl, now.plusSeconds(9)).eligible()).isZero();
    assertThat(HealthReads.of(store).backlog(dsl, retryAt).eligible()).isEqualTo(1);
    Claim retry =
        TestPassSql.of(store).outbox().claimByIds(dsl, new ClaimByIds(List.of(id), retryAt, CLAIM));
    assertThat(retry.messages()).extracting(ClaimedMessage::attempts).containsExactly(2);
    assertThat(retry.messages().get(0).lastError()).startsWith("java.io.IOException");
    assertThat(
            TestPassSql.of(store)
                .outbox()
                .recordFailures(dsl, claim.token(), List.of(new FailedSend(id, "late", retryAt))))
        .as("a stale token records nothing")
        .isZero();
  }

  @Test
  void moveToDeadMovesClaimedRowsWithReasonAndFingerprint() {
    Instant now = now();
    NewMessage message = StoreFixture.message().orderingKey("k").tenantId("t").build();
    long id = store.enqueue(dsl, message);
    long other = store.enqueue(dsl, unordered());
    Claim claim =
        TestPassSql.of(store).outbox().claimByIds(dsl, new ClaimByIds(List.of(other), now, CLAIM));

    assertThat(
            TestPassSql.of(store)
                .outbox()
                .moveToDead(
                    dsl,
                    UUID.randomUUID(),
                    new DeadLetter(List.of(other), "max-attempts", "boom 1", now)))
        .isZero();
    int moved =
        TestPassSql.of(store)
            .outbox()
            .moveToDead(
                dsl,
                claim.token(),
                new DeadLetter(
                    List.of(other),
                    "max-attempts",
                    "java.lang.IllegalStateException: boom 17",
                    now));

    assertThat(moved).isEqualTo(1);
    assertThat(row(other)).isNull();
    var dead =
        mapped.selectFrom(RELAYER_OUTBOX_DEAD).where(RELAYER_OUTBOX_DEAD.ID.eq(other)).fetchOne();
    assertThat(dead.getReason()).isEqualTo("max-attempts");
    assertThat(dead.getLastError()).isEqualTo("java.lang.IllegalStateException: boom 17");
    assertThat(dead.getErrorFingerprint())
        .isEqualTo(ErrorFingerprint.of("java.lang.IllegalStateException: boom 99"))
        .isNotEqualTo(ErrorFingerprint.of("java.io.IOException: boom 17"));
    assertThat(dead.getFailedAt().toInstant()).isEqualTo(now);
    assertThat(dead.getAttempts()).isEqualTo(1);
    assertThat(HealthReads.of(store).deadCount(dsl)).isEqualTo(1);
    assertThat(row(id)).isNotNull();
  }

  @Test
  void parkedKeysCanBeListedRetriedReleasedOrDeadLettered() {
    Instant now = now();
    long head = store.enqueue(dsl, ordered("alpha"));
    store.enqueue(dsl, ordered("alpha"));
    long beta = store.enqueue(dsl, ordered("beta"));
    UUID token = UUID.randomUUID();
    mapped
        .update(RELAYER_OUTBOX)
        .set(RELAYER_OUTBOX.CLAIM_TOKEN, token)
        .set(RELAYER_OUTBOX.CLAIM_EXPIRES_AT, OutboxSql.utc(now.plus(CLAIM)))
        .set(RELAYER_OUTBOX.ATTEMPTS, 5)
        .where(RELAYER_OUTBOX.ID.in(head, beta))
        .execute();

    assertThat(TestPassSql.of(store).lanes().park(dsl, UUID.randomUUID(), head, "stale", now))
        .isFalse();
    assertThat(TestPassSql.of(store).lanes().park(dsl, token, head, "broker said no", now))
        .isTrue();
    assertThat(TestPassSql.of(store).lanes().park(dsl, token, beta, "broker said no again", now))
        .isTrue();

    List<ParkedKey> parked = StoreOperations.of(store).parkedKeys(dsl, null);
    assertThat(parked)
        .extracting(ParkedKey::orderingKey)
        .containsExactlyInAnyOrder("alpha", "beta");
    ParkedKey alpha =
        parked.stream().filter(p -> p.orderingKey().equals("alpha")).findFirst().orElseThrow();
    assertThat(alpha.headId()).isEqualTo(head);
    assertThat(alpha.attempts()).isEqualTo(5);
    assertThat(alpha.lastError()).isEqualTo("broker said no");
    assertThat(alpha.parkedAt()).isEqualTo(now);
    assertThat(HealthReads.of(store).parkedKeyCount(dsl)).isEqualTo(2);
    assertThat(HealthReads.of(store).backlog(dsl, now).eligible())
        .as("parked rows are not eligible")
        .isEqualTo(1);

    assertThat(StoreOperations.of(store).retryHead(dsl, "test", "alpha")).isPresent();
    assertThat(row(head).getStatus()).isEqualTo("pending");
    assertThat(row(head).getAttempts()).isZero();

    assertThat(StoreOperations.of(store).moveHeadToDead(dsl, "test", "beta", now)).isPresent();
    assertThat(row(beta)).isNull();
    var dead =
        mapped.selectFrom(RELAYER_OUTBOX_DEAD).where(RELAYER_OUTBOX_DEAD.ID.eq(beta)).fetchOne();
    assertThat(dead.getReason()).isEqualTo("operator");
    assertThat(dead.getLastError()).isEqualTo("broker said no again");
    assertThat(StoreOperations.of(store).moveHeadToDead(dsl, "test", "beta", now))
        .as("only parked heads")
        .isEmpty();

    long gamma = store.enqueue(dsl, ordered("gamma"));
    UUID t2 = UUID.randomUUID();
    mapped
        .update(RELAYER_OUTBOX)
        .set(RELAYER_OUTBOX.CLAIM_TOKEN, t2)
        .set(RELAYER_OUTBOX.CLAIM_EXPIRES_AT, OutboxSql.utc(now.plus(CLAIM)))
        .where(RELAYER_OUTBOX.ID.eq(gamma))
        .execute();
    TestPassSql.of(store).lanes().park(dsl, t2, gamma, "e", now);
    int lane = Lanes.laneOf("gamma", StoreOptions.DEFAULT_LANES);
    assertThat(StoreOperations.of(store).parkedKeys(dsl, lane))
        .extracting(ParkedKey::orderingKey)
        .contains("gamma");
    assertThat(StoreOperations.of(store).release(dsl, "test", null).count()).isEqualTo(1);
    assertThat(HealthReads.of(store).parkedKeyCount(dsl)).isZero();
  }

  @Test
  void backlogCountsEligibleRowsAtAnExplicitInstantIncludingBoundaries() {
    Instant now = now();
    store.enqueue(dsl, unordered());
    store.enqueue(dsl, scheduled(now));
    store.enqueue(dsl, scheduled(now.plusMillis(1)));
    long liveClaim = store.enqueue(dsl, unordered());
    long claimEndsNow = store.enqueue(dsl, unordered());
    long expired = store.enqueue(dsl, unordered());
    TestPassSql.of(store).outbox().claimByIds(dsl, new ClaimByIds(List.of(liveClaim), now, CLAIM));
    TestPassSql.of(store)
        .outbox()
        .claimByIds(dsl, new ClaimByIds(List.of(claimEndsNow), now.minus(CLAIM), CLAIM));
    TestPassSql.of(store)
        .outbox()
        .claimByIds(dsl, new ClaimByIds(List.of(expired), now.minus(CLAIM).minusSeconds(1), CLAIM));

    Backlog backlog = HealthReads.of(store).backlog(dsl, now);

    assertThat(backlog.eligible()).isEqualTo(4);
    assertThat(backlog.oldestEligibleAge()).isPresent();
    assertThat(HealthReads.of(store).backlog(dsl, now, "memory").eligible()).isEqualTo(4);
    assertThat(HealthReads.of(store).backlog(dsl, now, "kafka").eligible()).isZero();
    assertThat(HealthReads.of(store).backlog(dsl, now, "kafka").oldestEligibleAge()).isEmpty();
  }

  @Test
  void leaseIsTakenHeldRenewedAndReleased() throws Exception {
    LeaseRequest a = new LeaseRequest("sweeper", "instance-a", Duration.ofSeconds(30));
    LeaseRequest b = new LeaseRequest("sweeper", "instance-b", Duration.ofSeconds(30));

    LeaseOutcome first =
        dsl.transactionResult(c -> TestPassSql.of(store).leases().tryAcquireLease(c.dsl(), a));
    assertThat(first.acquired()).isTrue();
    LeaseOutcome other =
        dsl.transactionResult(c -> TestPassSql.of(store).leases().tryAcquireLease(c.dsl(), b));
    assertThat(other).isInstanceOf(LeaseOutcome.HeldByOther.class);
    assertThat(((LeaseOutcome.HeldByOther) other).owner()).isEqualTo("instance-a");
    assertThat(
            dsl.transactionResult(c -> TestPassSql.of(store).leases().tryAcquireLease(c.dsl(), a))
                .acquired())
        .isTrue();
    assertThat(TestPassSql.of(store).leases().renewLease(dsl, a)).isTrue();
    assertThat(TestPassSql.of(store).leases().renewLease(dsl, b)).isFalse();
    assertThat(HealthReads.of(store).lease(dsl, "sweeper"))
        .get()
        .extracting(LeaseState::owner)
        .isEqualTo("instance-a");
    assertThat(HealthReads.of(store).liveLeases(dsl, "swe")).hasSize(1);

    assertThat(TestPassSql.of(store).leases().releaseLease(dsl, "sweeper", "instance-b")).isFalse();
    assertThat(TestPassSql.of(store).leases().releaseLease(dsl, "sweeper", "instance-a")).isTrue();
    assertThat(
            dsl.transactionResult(c -> TestPassSql.of(store).leases().tryAcquireLease(c.dsl(), b))
                .acquired())
        .isTrue();
  }

  @Test
  void leaseIsNeverHeldByTwoOwnersEvenWhenItExpiresDuringAPass() throws Exception {
    LeaseRequest a = new LeaseRequest("lane/1", "instance-a", Duration.ofSeconds(1));
    LeaseRequest b = new LeaseRequest("lane/1", "instance-b", Duration.ofSeconds(1));
    try (Connection passConnection = fx.connect()) {
      passConnection.setAutoCommit(false);
      DSLContext pass = fx.open(passConnection);
      assertThat(TestPassSql.of(store).leases().tryAcquireLease(pass, a).acquired()).isTrue();
      passConnection.commit();
      // A new pass of a: holds the row lock while its lease runs out.
      assertThat(TestPassSql.of(store).leases().tryAcquireLease(pass, a).acquired()).isTrue();
      Thread.sleep(1500);
      LeaseOutcome during =
          dsl.transactionResult(c -> TestPassSql.of(store).leases().tryAcquireLease(c.dsl(), b));
      assertThat(during)
          .as("the pass still holds the lease row")
          .isInstanceOf(LeaseOutcome.Busy.class);
      passConnection.commit();
    }
    Thread.sleep(1100);
    LeaseOutcome after =
        dsl.transactionResult(c -> TestPassSql.of(store).leases().tryAcquireLease(c.dsl(), b));
    assertThat(after.acquired()).as("an expired lease is taken over").isTrue();
    assertThat(HealthReads.of(store).lease(dsl, "lane/1"))
        .get()
        .extracting(LeaseState::owner)
        .isEqualTo("instance-b");
  }

  @Test
  void aLeaseTakenFromAnExpiredOwnerSaysSoAndOneNewKeptOrReleasedDoesNot() throws Exception {
    Duration second = Duration.ofSeconds(1);
    LeaseRequest a = new LeaseRequest("sweeper", "instance-a", second);
    LeaseRequest b = new LeaseRequest("sweeper", "instance-b", second);
    LeaseRequest laneA = new LeaseRequest("lane/0", "instance-a", second);
    LeaseRequest laneB = new LeaseRequest("lane/0", "instance-b", second);
    LeaseRequest otherB = new LeaseRequest("lane/1", "instance-b", second);

    LeaseOutcome created =
        dsl.transactionResult(c -> TestPassSql.of(store).leases().startLeasedPass(c.dsl(), a));
    assertThat(created.takenOver()).as("a new lease row").isFalse();
    assertThat(created.newlyAcquired()).isTrue();
    LeaseOutcome kept =
        dsl.transactionResult(c -> TestPassSql.of(store).leases().startLeasedPass(c.dsl(), a));
    assertThat(kept.takenOver()).as("kept by its owner").isFalse();
    assertThat(kept.newlyAcquired()).isFalse();
    assertThat(
            dsl.transactionResult(
                    c -> TestPassSql.of(store).leases().startLeasedPass(c.dsl(), laneA))
                .acquired())
        .isTrue();
    Thread.sleep(1200);
    LeaseOutcome taken =
        dsl.transactionResult(c -> TestPassSql.of(store).leases().startLeasedPass(c.dsl(), b));
    assertThat(taken.acquired()).isTrue();
    assertThat(taken.takenOver()).as("a's lease expired: a died or stalled").isTrue();
    assertThat(taken.newlyAcquired()).isTrue();
    assertThat(
            dsl.transactionResult(c -> TestPassSql.of(store).leases().tryAcquireLease(c.dsl(), b))
                .takenOver())
        .as("b keeps its own lease")
        .isFalse();
    List<LeaseOutcome> several =
        dsl.transactionResult(
            c -> TestPassSql.of(store).leases().startLeasedPass(c.dsl(), List.of(laneB, otherB)));
    assertThat(several).extracting(LeaseOutcome::takenOver).containsExactly(true, false);

    assertThat(TestPassSql.of(store).leases().releaseLease(dsl, "sweeper", "instance-b")).isTrue();
    assertThat(
            dsl.transactionResult(c -> TestPassSql.of(store).leases().startLeasedPass(c.dsl(), a))
                .takenOver())
        .as("a released lease is taken afresh")
        .isFalse();
  }

  @Test
  void concurrentPassesOfManyOwnersNeverOverlap() throws Exception {
    int owners = 4;
    Set<String> inside = ConcurrentHashMap.newKeySet();
    List<String> overlaps = Collections.synchronizedList(new ArrayList<>());
    Set<String> winners = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(owners);
    try {
      List<CompletableFuture<Void>> runs = new ArrayList<>();
      for (int o = 0; o < owners; o++) {
        String owner = "owner-" + o;
        runs.add(
            CompletableFuture.runAsync(
                () -> {
                  for (int pass = 0; pass < 15; pass++) {
                    dsl.transaction(
                        c -> {
                          LeaseRequest request =
                              new LeaseRequest("sweeper", owner, Duration.ofSeconds(1));
                          if (TestPassSql.of(store)
                              .leases()
                              .tryAcquireLease(c.dsl(), request)
                              .acquired()) {
                            winners.add(owner);
                            if (!inside.add("sweeper")) {
                              overlaps.add(owner);
                            }
                            Thread.sleep(5);
                            inside.remove("sweeper");
                            TestPassSql.of(store).leases().releaseLease(c.dsl(), "sweeper", owner);
                          }
                        });
                  }
                },
                pool));
      }
      CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(overlaps).isEmpty();
    assertThat(winners).isNotEmpty();
  }

  @Test
  void orderedEnqueuesOfOneKeyGetIdsInCommitOrder() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection first = fx.connect();
        Connection second = fx.connect()) {
      first.setAutoCommit(false);
      second.setAutoCommit(false);
      long firstId = store.enqueue(fx.open(first), ordered("same-key"));
      Future<Long> secondId =
          pool.submit(
              () -> {
                long id = store.enqueue(fx.open(second), ordered("same-key"));
                second.commit();
                return id;
              });
      awaitLockWait();
      assertThat(secondId.isDone()).as("second writer waits for the key's lock").isFalse();
      first.commit();
      assertThat(secondId.get(10, TimeUnit.SECONDS)).isGreaterThan(firstId);
      // A different key never waits.
      long other = store.enqueue(fx.open(first), ordered("other-key"));
      first.commit();
      assertThat(other).isPositive();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void anOrderedEnqueueOfSeveralKeysTakesEveryKeysLockBeforeItsRowsGetIds() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection first = fx.connect();
        Connection second = fx.connect()) {
      first.setAutoCommit(false);
      second.setAutoCommit(false);
      long firstId = store.enqueue(fx.open(first), ordered("held-key"));
      Future<List<Long>> secondIds =
          pool.submit(
              () -> {
                List<Long> ids =
                    store.enqueue(
                        fx.open(second),
                        List.of(ordered("free-key"), unordered(), ordered("held-key")));
                second.commit();
                return ids;
              });
      awaitLockWait();
      assertThat(secondIds.isDone()).as("the writer waits for one of its keys").isFalse();
      // Drawn while the writer waits: had the writer drawn its ids before its locks, this one
      // would be higher than all of them.
      long drawnWhileWaiting = store.enqueue(dsl, unordered());
      first.commit();
      List<Long> ids = secondIds.get(10, TimeUnit.SECONDS);
      assertThat(firstId).isLessThan(drawnWhileWaiting);
      assertThat(ids).hasSize(3).allSatisfy(id -> assertThat(id).isGreaterThan(drawnWhileWaiting));
      assertThat(ids).isSorted();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void anOrderedEnqueueWhoseKeyLockTimesOutOnAnAutoCommitConnectionWritesNothing()
      throws Exception {
    try (Connection holder = fx.connect();
        Connection writer = fx.connect()) {
      holder.setAutoCommit(false);
      store.enqueue(fx.open(holder), ordered("held-key"));
      try (var settings = writer.createStatement()) {
        settings.execute("SET lock_timeout = '200ms'");
      }
      List<NewMessage> batch = List.of(ordered("free-key"), ordered("held-key"));
      assertThatThrownBy(() -> store.enqueue(fx.open(writer), batch))
          .hasMessageContaining("lock timeout");
      assertThat(writer.getAutoCommit()).isTrue();
      holder.commit();
      assertThat(mapped.fetchCount(RELAYER_OUTBOX, RELAYER_OUTBOX.ORDERING_KEY.eq("free-key")))
          .as("no row of the failed enqueue")
          .isZero();
      assertThat(store.enqueue(fx.open(writer), batch)).hasSize(2);
      assertThat(outboxCount()).isEqualTo(3);
    }
  }

  private void awaitLockWait() throws InterruptedException {
    for (int i = 0; i < 200; i++) {
      Integer waiting =
          dsl.fetchValue(
              DSL.selectCount()
                  .from(DSL.table(DSL.name("pg_catalog", "pg_locks")))
                  .where(DSL.field(DSL.name("locktype"), String.class).eq("advisory"))
                  .and(DSL.field(DSL.name("granted"), Boolean.class).isFalse()));
      if (waiting != null && waiting > 0) {
        return;
      }
      Thread.sleep(25);
    }
    throw new AssertionError("the second writer never waited for the advisory lock");
  }

  @Test
  void inboxRecordsEachMessageOncePerConsumer() throws Exception {
    UUID messageId = UUID.randomUUID();
    InboxOutcome first =
        dsl.transactionResult(c -> store.tryRecordInbox(c.dsl(), "billing", messageId));
    InboxOutcome second =
        dsl.transactionResult(c -> store.tryRecordInbox(c.dsl(), "billing", messageId));
    assertThat(first).isEqualTo(InboxOutcome.FIRST);
    assertThat(second).isEqualTo(InboxOutcome.DUPLICATE);
    assertThat(store.tryRecordInbox(dsl, "shipping", messageId)).isEqualTo(InboxOutcome.FIRST);
    assertThatThrownBy(() -> store.tryRecordInbox(dsl, " ", messageId))
        .isInstanceOf(InvalidInputException.class);
  }

  @Test
  void concurrentInboxRecordsOfOneIdYieldOneFirstAndOneDuplicate() throws Exception {
    UUID messageId = UUID.randomUUID();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection first = fx.connect();
        Connection second = fx.connect()) {
      first.setAutoCommit(false);
      second.setAutoCommit(false);
      assertThat(store.tryRecordInbox(fx.open(first), "c", messageId))
          .isEqualTo(InboxOutcome.FIRST);
      Future<InboxOutcome> racing =
          pool.submit(
              () -> {
                InboxOutcome outcome = store.tryRecordInbox(fx.open(second), "c", messageId);
                second.commit();
                return outcome;
              });
      first.commit();
      assertThat(racing.get(10, TimeUnit.SECONDS)).isEqualTo(InboxOutcome.DUPLICATE);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void rolledBackConsumerTransactionLeavesNoInboxRecord() {
    UUID messageId = UUID.randomUUID();
    assertThatThrownBy(
            () ->
                dsl.transaction(
                    c -> {
                      store.tryRecordInbox(c.dsl(), "billing", messageId);
                      throw new IllegalStateException("consumer failed");
                    }))
        .hasMessage("consumer failed");
    assertThat(mapped.fetchCount(RELAYER_INBOX)).isZero();
    assertThat(store.tryRecordInbox(dsl, "billing", messageId)).isEqualTo(InboxOutcome.FIRST);
  }

  @Test
  void retentionDeletesOldDeadAndInboxRowsInKeysetBatchesAndNeverTouchesTheOutbox() {
    Instant now = now();
    Instant old = now.minus(Duration.ofDays(40));
    for (int i = 0; i < 5; i++) {
      long id = store.enqueue(dsl, unordered());
      Claim claim =
          TestPassSql.of(store).outbox().claimByIds(dsl, new ClaimByIds(List.of(id), now, CLAIM));
      TestPassSql.of(store)
          .outbox()
          .moveToDead(
              dsl,
              claim.token(),
              new DeadLetter(List.of(id), "max-attempts", "e", i < 4 ? old : now));
    }
    for (int i = 0; i < 5; i++) {
      store.tryRecordInbox(dsl, "c", UUID.randomUUID());
    }
    mapped
        .update(RELAYER_INBOX)
        .set(RELAYER_INBOX.PROCESSED_AT, OutboxSql.utc(old))
        .where(
            RELAYER_INBOX.MESSAGE_ID.in(
                mapped.select(RELAYER_INBOX.MESSAGE_ID).from(RELAYER_INBOX).limit(3)))
        .execute();
    long pending = store.enqueue(dsl, unordered());
    mapped
        .update(RELAYER_OUTBOX)
        .set(RELAYER_OUTBOX.CREATED_AT, OutboxSql.utc(old))
        .where(RELAYER_OUTBOX.ID.eq(pending))
        .execute();
    Instant cutoff = now.minus(Duration.ofDays(30));

    PurgeBatch deadBatch = PurgeBatch.first(cutoff, 3);
    Purged firstDead = TestPassSql.of(store).deadRetention().run(dsl, deadBatch);
    assertThat(firstDead.deleted()).as("three of the four sharing one timestamp").isEqualTo(3);
    assertThat(firstDead.drained()).isFalse();
    assertThat(firstDead.next()).contains(old.truncatedTo(ChronoUnit.MICROS));
    deadBatch = deadBatch.after(firstDead);
    Purged secondDead = TestPassSql.of(store).deadRetention().run(dsl, deadBatch);
    assertThat(secondDead.deleted()).isEqualTo(1);
    assertThat(secondDead.drained()).isTrue();
    assertThat(
            TestPassSql.of(store).deadRetention().run(dsl, deadBatch.after(secondDead)).deleted())
        .isZero();
    assertThat(TestPassSql.of(store).deadRetention().run(dsl, PurgeBatch.first(cutoff, 3)).next())
        .isEmpty();
    assertThat(HealthReads.of(store).deadCount(dsl)).isEqualTo(1);
    PurgeBatch inboxBatch = PurgeBatch.first(cutoff, 2);
    Purged firstInbox = TestPassSql.of(store).inboxRetention().run(dsl, inboxBatch);
    assertThat(firstInbox.deleted()).isEqualTo(2);
    inboxBatch = inboxBatch.after(firstInbox);
    assertThat(TestPassSql.of(store).inboxRetention().run(dsl, inboxBatch).deleted()).isEqualTo(1);
    assertThat(
            TestPassSql.of(store).inboxRetention().run(dsl, PurgeBatch.first(cutoff, 2)).deleted())
        .isZero();
    assertThat(mapped.fetchCount(RELAYER_INBOX)).isEqualTo(2);
    assertThat(row(pending)).as("pending rows never expire").isNotNull();
  }

  @Test
  void aRetentionBatchNeverDeletesMoreThanItsLimitWhenRowsShareItsNewestTimestamp() {
    Instant t1 = now().minus(Duration.ofDays(40)).truncatedTo(ChronoUnit.MICROS);
    Instant t2 = t1.plusSeconds(1);
    Instant t3 = t2.plusSeconds(1);
    inboxRecordsAt(t1, 2);
    inboxRecordsAt(t2, 5);
    inboxRecordsAt(t3, 1);
    inboxRecordsAt(now(), 1);
    PurgeBatch batch = PurgeBatch.first(now().minus(Duration.ofDays(30)), 4);

    Purged first = TestPassSql.of(store).inboxRetention().run(dsl, batch);
    assertThat(first.deleted()).as("the two at t1; the five at t2 go past the limit").isEqualTo(2);
    assertThat(first.next()).contains(t2);
    assertThat(mapped.fetchCount(RELAYER_INBOX)).isEqualTo(7);
    batch = batch.after(first);
    Purged second = TestPassSql.of(store).inboxRetention().run(dsl, batch);
    assertThat(second.deleted()).as("four of the five at t2").isEqualTo(4);
    assertThat(second.next()).contains(t2);
    batch = batch.after(second);
    Purged third = TestPassSql.of(store).inboxRetention().run(dsl, batch);
    assertThat(third.deleted()).as("the last at t2 and the one at t3").isEqualTo(2);
    assertThat(third.drained()).isTrue();
    assertThat(TestPassSql.of(store).inboxRetention().run(dsl, batch.after(third)).deleted())
        .isZero();
    assertThat(mapped.fetchCount(RELAYER_INBOX)).as("the recent record stays").isEqualTo(1);
  }

  private void inboxRecordsAt(Instant processedAt, int count) {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      UUID id = UUID.randomUUID();
      store.tryRecordInbox(dsl, "c", id);
      ids.add(id);
    }
    mapped
        .update(RELAYER_INBOX)
        .set(RELAYER_INBOX.PROCESSED_AT, OutboxSql.utc(processedAt))
        .where(RELAYER_INBOX.MESSAGE_ID.in(ids))
        .execute();
  }

  /**
   * The server setting {@code name} before, inside a transaction that ran {@code action}, and after
   * it (the embedded test server runs with {@code synchronous_commit = off} by default).
   */
  private List<String> settingBeforeInsideAndAfter(String name, Consumer<DSLContext> action) {
    var setting = DSL.field(DSL.function("current_setting", String.class, DSL.inline(name)));
    String before = dsl.select(setting).fetchOne(0, String.class);
    String inside =
        dsl.transactionResult(
            c -> {
              action.accept(c.dsl());
              return c.dsl().select(setting).fetchOne(0, String.class);
            });
    return List.of(before, inside, dsl.select(setting).fetchOne(0, String.class));
  }

  @Test
  void commitWithoutFlushWaitRelaxesOnlyTheCurrentTransaction() {
    List<String> values =
        settingBeforeInsideAndAfter(
            "synchronous_commit", TestPassSql.of(store)::commitWithoutFlushWait);
    assertThat(values.get(1)).isEqualTo("off");
    assertThat(values.get(2)).isEqualTo(values.get(0));
  }

  @Test
  void aRetentionBatchCommitsWithoutFlushWaitAndRelaxesOnlyItsOwnTransaction() {
    inboxRecordsAt(now().minus(Duration.ofDays(40)), 3);
    PurgeBatch batch = PurgeBatch.first(now().minus(Duration.ofDays(30)), 2);
    List<Purged> purged = new ArrayList<>();

    List<String> values =
        settingBeforeInsideAndAfter(
            "synchronous_commit",
            t -> purged.add(TestPassSql.of(store).inboxRetention().run(t, batch)));

    assertThat(values.get(1)).isEqualTo("off");
    assertThat(values.get(2)).isEqualTo(values.get(0));
    assertThat(purged.get(0).deleted()).isEqualTo(2);
  }

  @Test
  void aLeasedPassSetsItsSettingsForItsTransactionOnlyWhetherOrNotItTakesTheLease() {
    LeaseRequest mine = new LeaseRequest("pass", "instance-a", Duration.ofSeconds(30));
    LeaseRequest theirs = new LeaseRequest("pass", "instance-b", Duration.ofSeconds(30));
    for (LeaseRequest lease : List.of(mine, mine, theirs)) {
      List<LeaseOutcome> outcome = new ArrayList<>();
      List<String> flush =
          settingBeforeInsideAndAfter(
              "synchronous_commit",
              t -> outcome.add(TestPassSql.of(store).leases().startLeasedPass(t, lease)));
      assertThat(flush.get(1)).isEqualTo("off");
      assertThat(flush.get(2)).isEqualTo(flush.get(0));
      assertThat(
              settingBeforeInsideAndAfter(
                  "plan_cache_mode", t -> TestPassSql.of(store).leases().startLeasedPass(t, lease)))
          .containsExactly("auto", "force_generic_plan", "auto");
      assertThat(
              settingBeforeInsideAndAfter(
                  "enable_seqscan", t -> TestPassSql.of(store).leases().startLeasedPass(t, lease)))
          .containsExactly("on", "off", "on");
      assertThat(
              settingBeforeInsideAndAfter(
                  "enable_bitmapscan",
                  t -> TestPassSql.of(store).leases().startLeasedPass(t, lease)))
          .containsExactly("on", "off", "on");
      assertThat(outcome.get(0).acquired()).as(lease.owner()).isEqualTo(lease.equals(mine));
    }
  }

  @Test
  void verifySchemaAcceptsTheInstalledTables() {
    store.verifySchema(dsl);
  }

  @Test
  void distinctIdsHaveDistinctClaimTokens() {
    Set<UUID> tokens = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      long id = store.enqueue(dsl, unordered());
      tokens.add(
          TestPassSql.of(store)
              .outbox()
              .claimByIds(dsl, new ClaimByIds(List.of(id), now(), CLAIM))
              .token());
    }
    assertThat(tokens).hasSize(3);
  }
}
