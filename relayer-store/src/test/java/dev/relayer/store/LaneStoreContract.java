package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_LEASES;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.store.StoreFixture.message;
import static dev.relayer.store.StoreFixture.ordered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.jooq.generated.tables.records.RelayerOutboxRecord;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.health.LeaseState;
import dev.relayer.store.internal.StoreDsl;
import dev.relayer.store.ops.ParkedKey;
import dev.relayer.store.ops.StoreOperations;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.FailedSend;
import dev.relayer.store.pass.LaneClaim;
import dev.relayer.store.pass.LeaseOutcome;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.TestPassSql;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The lane statements (claim, unclaim, next due instant, notifications) against a real PostgreSQL,
 * once per schema configuration.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LaneStoreContract {

  private static final Duration CLAIM = Duration.ofSeconds(30);
  private static final int LANE = 5;
  private static final int OTHER_LANE = 9;

  StoreFixture fx;
  RelayerStore store;
  DSLContext dsl;
  DSLContext mapped;
  List<String> keys;
  List<String> otherKeys;
  String thirdLaneKey;

  abstract SchemaOptions schema();

  @BeforeAll
  void createDatabase() {
    fx = new StoreFixture(schema());
    store = fx.store;
    dsl = fx.dsl;
    mapped = new StoreDsl(schema()).map(dsl);
    keys = keysInLane(LANE, 4, store.options().laneCount());
    otherKeys = keysInLane(OTHER_LANE, 2, store.options().laneCount());
    thirdLaneKey = keysInLane(LANE + 1, 1, store.options().laneCount()).get(0);
  }

  @AfterAll
  void dropDatabase() {
    fx.close();
  }

  @BeforeEach
  void emptyTables() {
    mapped.deleteFrom(RELAYER_OUTBOX).execute();
    mapped.deleteFrom(RELAYER_LEASES).execute();
  }

  /** {@code count} distinct keys that all map to {@code lane}. */
  static List<String> keysInLane(int lane, int count, int laneCount) {
    List<String> found = new ArrayList<>();
    for (int i = 0; found.size() < count; i++) {
      String key = "customer-" + i;
      if (Lanes.laneOf(key, laneCount) == lane) {
        found.add(key);
      }
    }
    return found;
  }

  private Instant now() {
    return Instant.now().truncatedTo(ChronoUnit.MICROS);
  }

  private RelayerOutboxRecord row(long id) {
    return mapped.selectFrom(RELAYER_OUTBOX).where(RELAYER_OUTBOX.ID.eq(id)).fetchOne();
  }

  private List<Long> enqueue(String key, int count) {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(store.enqueue(dsl, ordered(key)));
    }
    return ids;
  }

  private LaneClaim heads(int maxKeys) {
    return new LaneClaim(LANE, maxKeys, 0, Set.of(), now(), CLAIM);
  }

  private LaneClaim runs(int followers, String... batching) {
    return new LaneClaim(LANE, 100, followers, Set.of(batching), now(), CLAIM);
  }

  private static List<Long> ids(Claim claim) {
    return claim.messages().stream().map(ClaimedMessage::id).toList();
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void laneClaimChecksParkedKeysOncePerKeyNotOncePerPendingRow() {
    int rowsPerKey = 40;
    List<Long> heads = new ArrayList<>();
    for (int k = 0; k < 3; k++) {
      heads.add(enqueue(keys.get(k), rowsPerKey).get(0));
    }
    dsl.transaction(
        tx -> {
          Claim claim = TestPassSql.of(store).lanes().claimLane(tx.dsl(), heads(10));
          long parkedIndexScans =
              tx.dsl()
                  .fetchSingle(
                      "SELECT pg_stat_get_xact_numscans(to_regclass({0}))",
                      store.names().qualified("outbox_parked_idx"))
                  .into(Long.class);
          assertThat(ids(claim)).containsExactlyElementsOf(heads);
          // Per row, 120 rows would have meant 120 scans of the parked-key index.
          assertThat(parkedIndexScans).as("scans of the parked-key index").isLessThanOrEqualTo(3);
        });
  }

  @Test
  void laneClaimTakesOneHeadPerKeyOldestHeadsFirst() {
    List<Long> a = enqueue(keys.get(0), 3);
    List<Long> b = enqueue(keys.get(1), 2);
    List<Long> c = enqueue(keys.get(2), 1);
    store.enqueue(dsl, message().build()); // unordered: never in a lane claim

    Claim first = TestPassSql.of(store).lanes().claimLane(dsl, heads(2));
    assertThat(ids(first)).containsExactly(a.get(0), b.get(0));
    assertThat(first.messages()).allMatch(m -> m.attempts() == 1 && m.lane() == LANE);
    assertThat(row(a.get(0)).getClaimToken()).isEqualTo(first.token());

    Claim second = TestPassSql.of(store).lanes().claimLane(dsl, heads(10));
    assertThat(ids(second))
        .as("a and b are held by their in-flight heads")
        .containsExactly(c.get(0));
    assertThat(TestPassSql.of(store).lanes().claimLane(dsl, heads(10)).isEmpty()).isTrue();

    assertThat(TestPassSql.of(store).outbox().deleteFenced(dsl, first.token(), List.of(a.get(0))))
        .isEqualTo(1);
    assertThat(ids(TestPassSql.of(store).lanes().claimLane(dsl, heads(10))))
        .containsExactly(a.get(1));
  }

  @Test
  void aKeyWithMoreRowsThanTheWalkReadsAheadOfTheOthersStillLetsEveryOldestHeadGo() {
    // More rows of one key than a lane's walk in id order reads before it turns to the lane's keys.
    List<Long> crowd = enqueueAll(keys.get(0), 1_200);
    long other = store.enqueue(dsl, ordered(otherKeys.get(0)));
    List<Long> retrying = enqueue(keys.get(1), 2);
    long last = store.enqueue(dsl, ordered(keys.get(2)));
    Set<Integer> both = Set.of(LANE, OTHER_LANE);

    Claim first =
        TestPassSql.of(store)
            .lanes()
            .claimLane(dsl, new LaneClaim(both, 3, 0, Set.of(), now(), CLAIM));
    assertThat(ids(first))
        .as("the three oldest heads, across the lanes")
        .containsExactly(crowd.get(0), other, retrying.get(0));
    Instant now = now();
    assertThat(TestPassSql.of(store).lanes().park(dsl, first.token(), crowd.get(0), "poison", now))
        .isTrue();
    TestPassSql.of(store)
        .outbox()
        .recordFailures(
            dsl,
            first.token(),
            List.of(new FailedSend(retrying.get(0), "broker down", now.plusSeconds(60))));

    assertThat(ids(TestPassSql.of(store).lanes().claimLane(dsl, heads(10))))
        .as("the parked key and the retrying one hold; the last key moves")
        .containsExactly(last);
    assertThat(row(crowd.get(1)).getClaimToken()).isNull();
    assertThat(row(retrying.get(1)).getClaimToken()).isNull();
  }

  @Test
  void aLaneClaimReadsAboutTheRowsItClaimsNotTheLanesBacklog() {
    long small = blocksReadByAClaimOfTenHeads(10);
    emptyTables();
    long large = blocksReadByAClaimOfTenHeads(1_000);
    // Ten heads: a walk of about ten rows and one index probe each. Reading the backlog of 10,000
    // rows would touch every page that holds them.
    assertThat(large)
        .as("blocks read with 1,000 rows a key (%d with 10 rows a key)", small)
        .isLessThan(2 * small);
  }

  /**
   * Blocks of the outbox and its indexes that a claim of ten heads reads, in a lane of ten keys
   * with {@code rowsPerKey} rows each, written round-robin.
   */
  private long blocksReadByAClaimOfTenHeads(int rowsPerKey) {
    List<String> ten = keysInLane(LANE, 10, store.options().laneCount());
    List<NewMessage> backlog = new ArrayList<>();
    for (int i = 0; i < rowsPerKey; i++) {
      for (String key : ten) {
        backlog.add(ordered(key));
      }
    }
    for (int from = 0; from < backlog.size(); from += 1_000) {
      store.enqueue(dsl, backlog.subList(from, Math.min(backlog.size(), from + 1_000)));
    }
    mapped.execute("ANALYZE " + store.names().qualified("outbox"));
    return dsl.transactionResult(
        tx -> {
          String blocks =
              "SELECT sum(pg_stat_get_xact_blocks_fetched(c.oid)) FROM pg_class c"
                  + " WHERE c.oid = to_regclass({0}) OR c.oid IN"
                  + " (SELECT indexrelid FROM pg_index WHERE indrelid = to_regclass({0}))";
          String outbox = store.names().qualified("outbox");
          long before = tx.dsl().fetchSingle(blocks, outbox).into(Long.class);
          Claim claim = TestPassSql.of(store).lanes().claimLane(tx.dsl(), heads(10));
          long after = tx.dsl().fetchSingle(blocks, outbox).into(Long.class);
          assertThat(claim.messages()).hasSize(10);
          return after - before;
        });
  }

  private List<Long> enqueueAll(String key, int count) {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      messages.add(ordered(key));
    }
    return store.enqueue(dsl, messages);
  }

  @Test
  void laneClaimTakesConsecutiveFollowersOnlyOnBatchingTransportsAndSameDestination() {
    String key = keys.get(0);
    List<Long> run = enqueue(key, 4);
    String other = keys.get(1);
    long otherHead = store.enqueue(dsl, message().orderingKey(other).transport("plain").build());
    long otherNext = store.enqueue(dsl, message().orderingKey(other).transport("plain").build());
    String split = keys.get(2);
    long splitHead = store.enqueue(dsl, ordered(split));
    long splitSecond = store.enqueue(dsl, ordered(split));
    long elsewhere =
        store.enqueue(dsl, message().orderingKey(split).destination("billing").build());
    long splitLast = store.enqueue(dsl, ordered(split));

    Claim claim = TestPassSql.of(store).lanes().claimLane(dsl, runs(2, "memory"));

    assertThat(ids(claim))
        .containsExactly(run.get(0), run.get(1), run.get(2), otherHead, splitHead, splitSecond);
    assertThat(row(otherNext).getClaimToken()).as("plain transport: head only").isNull();
    assertThat(row(elsewhere).getClaimToken()).as("another destination ends the run").isNull();
    assertThat(row(splitLast).getClaimToken()).isNull();
    assertThat(row(run.get(3)).getClaimToken()).as("at most 2 followers").isNull();
  }

  @Test
  void laneClaimWithoutFollowersTakesHeadsOnlyEvenOnBatchingTransports() {
    List<Long> run = enqueue(keys.get(0), 3);
    assertThat(ids(TestPassSql.of(store).lanes().claimLane(dsl, runs(0, "memory"))))
        .containsExactly(run.get(0));
  }

  @Test
  void aParkedScheduledOrRetryingHeadHoldsItsKeyOnly() {
    Instant now = now();
    List<Long> parkedKey = enqueue(keys.get(0), 2);
    long scheduledHead =
        store.enqueue(
            dsl, message().orderingKey(keys.get(1)).deliverAt(now.plusSeconds(60)).build());
    long behindSchedule = store.enqueue(dsl, ordered(keys.get(1)));
    List<Long> retrying = enqueue(keys.get(2), 2);
    List<Long> healthy = enqueue(keys.get(3), 2);
    long otherLane = store.enqueue(dsl, ordered(keysInLane(LANE + 1, 1, 16).get(0)));

    Claim first = TestPassSql.of(store).lanes().claimLane(dsl, heads(1));
    assertThat(ids(first)).containsExactly(parkedKey.get(0));
    assertThat(
            TestPassSql.of(store).lanes().park(dsl, first.token(), parkedKey.get(0), "poison", now))
        .isTrue();
    Claim second = TestPassSql.of(store).lanes().claimLane(dsl, heads(1));
    assertThat(ids(second)).containsExactly(retrying.get(0));
    TestPassSql.of(store)
        .outbox()
        .recordFailures(
            dsl,
            second.token(),
            List.of(new FailedSend(retrying.get(0), "broker down", now.plusSeconds(60))));

    Claim third = TestPassSql.of(store).lanes().claimLane(dsl, heads(10));
    assertThat(ids(third))
        .as("only the healthy key moves; no row behind a held head, none of another lane")
        .containsExactly(healthy.get(0));
    assertThat(ids(third)).doesNotContain(parkedKey.get(1), behindSchedule, retrying.get(1));
    assertThat(row(scheduledHead).getClaimToken()).isNull();
    assertThat(row(otherLane).getClaimToken()).isNull();

    Claim later =
        TestPassSql.of(store)
            .lanes()
            .claimLane(dsl, new LaneClaim(LANE, 10, 0, Set.of(), now.plusSeconds(61), CLAIM));
    assertThat(ids(later))
        .as("schedule, backoff and the healthy head's claim have passed")
        .containsExactly(scheduledHead, retrying.get(0), healthy.get(0));
  }

  @Test
  void laneClaimNeverTakesARowBehindAHeadLockedByAnotherTransaction() throws Exception {
    List<Long> locked = enqueue(keys.get(0), 3);
    List<Long> free = enqueue(keys.get(1), 2);
    try (Connection holder = fx.connect()) {
      holder.setAutoCommit(false);
      new StoreDsl(schema())
          .map(fx.open(holder))
          .selectFrom(RELAYER_OUTBOX)
          .where(RELAYER_OUTBOX.ID.eq(locked.get(0)))
          .forUpdate()
          .fetch();

      Claim claim = TestPassSql.of(store).lanes().claimLane(dsl, runs(5, "memory"));

      assertThat(ids(claim)).containsExactly(free.get(0), free.get(1));
      holder.rollback();
    }
    assertThat(row(locked.get(1)).getClaimToken()).isNull();
    assertThat(row(locked.get(1)).getAttempts()).isZero();
    assertThat(ids(TestPassSql.of(store).lanes().claimLane(dsl, runs(5, "memory"))))
        .containsExactlyElementsOf(locked);
  }

  @Test
  void unclaimGivesRowsBackAndRefundsTheirAttempt() {
    List<Long> run = enqueue(keys.get(0), 2);
    Claim claim = TestPassSql.of(store).lanes().claimLane(dsl, runs(1, "memory"));
    assertThat(ids(claim)).containsExactlyElementsOf(run);

    assertThat(TestPassSql.of(store).lanes().unclaim(dsl, UUID.randomUUID(), List.of(run.get(1))))
        .as("stale")
        .isZero();
    assertThat(TestPassSql.of(store).lanes().unclaim(dsl, claim.token(), List.of(run.get(1))))
        .isEqualTo(1);

    RelayerOutboxRecord back = row(run.get(1));
    assertThat(back.getClaimToken()).isNull();
    assertThat(back.getClaimExpiresAt()).isNull();
    assertThat(back.getAttempts()).isZero();
    assertThat(row(run.get(0)).getAttempts()).isEqualTo(1);
  }

  @Test
  void nextDueInLanesIsTheEarliestScheduleOrHoldStillAheadPerLane() {
    Instant now = now();
    Set<Integer> both = Set.of(LANE, OTHER_LANE);
    assertThat(TestPassSql.of(store).lanes().nextDueInLanes(dsl, both, now)).isEmpty();
    store.enqueue(dsl, message().orderingKey(keys.get(0)).deliverAt(now.plusSeconds(90)).build());
    long held = store.enqueue(dsl, ordered(keys.get(1)));
    Claim claim = TestPassSql.of(store).lanes().claimLane(dsl, heads(10));
    assertThat(ids(claim)).containsExactly(held);
    TestPassSql.of(store)
        .outbox()
        .recordFailures(
            dsl, claim.token(), List.of(new FailedSend(held, "later", now.plusSeconds(40))));
    store.enqueue(dsl, message().orderingKey(keys.get(2)).deliverAt(now.minusSeconds(5)).build());
    store.enqueue(
        dsl, message().orderingKey(otherKeys.get(0)).deliverAt(now.plusSeconds(70)).build());

    assertThat(TestPassSql.of(store).lanes().nextDueInLanes(dsl, both, now))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(LANE, now.plusSeconds(40), OTHER_LANE, now.plusSeconds(70)));
    assertThat(TestPassSql.of(store).lanes().nextDueInLanes(dsl, both, now.plusSeconds(71)))
        .containsExactlyInAnyOrderEntriesOf(Map.of(LANE, now.plusSeconds(90)));
    assertThat(TestPassSql.of(store).lanes().nextDueInLanes(dsl, Set.of(LANE + 1), now)).isEmpty();
  }

  @Test
  void renewLeasesAndFindNextDueRenewsOnlyTheOwnersLeasesAndFindsEachLanesNextDue() {
    Instant now = now();
    Duration tenMinutes = Duration.ofMinutes(10);
    LeaseRequest owner = new LeaseRequest("lane/" + LANE, "instance-a", tenMinutes);
    LeaseRequest ownerOther = new LeaseRequest("lane/" + OTHER_LANE, "instance-a", tenMinutes);
    LeaseRequest other = new LeaseRequest("lane/" + LANE, "instance-b", Duration.ofHours(1));
    Set<Integer> both = Set.of(LANE, OTHER_LANE);
    assertThat(
            TestPassSql.of(store)
                .lanes()
                .renewLeasesAndFindNextDue(dsl, List.of(owner, ownerOther), both, now))
        .as("no lease yet")
        .isEmpty();
    assertThat(HealthReads.of(store).lease(dsl, owner.name())).isEmpty();

    assertThat(
            dsl.transactionResult(
                    c -> TestPassSql.of(store).leases().tryAcquireLease(c.dsl(), owner))
                .acquired())
        .isTrue();
    assertThat(
            dsl.transactionResult(
                    c -> TestPassSql.of(store).leases().tryAcquireLease(c.dsl(), ownerOther))
                .acquired())
        .isTrue();
    Instant taken = HealthReads.of(store).lease(dsl, owner.name()).orElseThrow().expiresAt();
    Instant takenOther =
        HealthReads.of(store).lease(dsl, ownerOther.name()).orElseThrow().expiresAt();
    store.enqueue(dsl, message().orderingKey(keys.get(0)).deliverAt(now.plusSeconds(90)).build());

    assertThat(
            TestPassSql.of(store).lanes().renewLeasesAndFindNextDue(dsl, List.of(other), both, now))
        .containsExactlyInAnyOrderEntriesOf(Map.of(LANE, now.plusSeconds(90)));
    assertThat(HealthReads.of(store).lease(dsl, owner.name()).orElseThrow())
        .as("another owner's renewal changes nothing")
        .extracting(LeaseState::owner, LeaseState::expiresAt)
        .containsExactly("instance-a", taken);

    assertThat(
            TestPassSql.of(store)
                .lanes()
                .renewLeasesAndFindNextDue(dsl, List.of(owner, ownerOther), Set.of(), now))
        .as("no lanes asked")
        .isEmpty();
    assertThat(HealthReads.of(store).lease(dsl, owner.name()).orElseThrow().expiresAt())
        .isAfter(taken);
    assertThat(HealthReads.of(store).lease(dsl, ownerOther.name()).orElseThrow().expiresAt())
        .isAfter(takenOther);
    assertThat(
            TestPassSql.of(store)
                .lanes()
                .renewLeasesAndFindNextDue(dsl, List.of(owner), Set.of(LANE + 1), now))
        .isEmpty();
  }

  @Test
  void lanesWithDueHeadAreTheLanesWhereAClaimWouldFindARow() {
    Instant now = now();
    Set<Integer> lane = Set.of(LANE);
    assertThat(TestPassSql.of(store).lanes().lanesWithDueHead(dsl, lane, now)).isEmpty();
    store.enqueue(dsl, message().orderingKey(keys.get(0)).deliverAt(now.plusSeconds(90)).build());
    assertThat(TestPassSql.of(store).lanes().lanesWithDueHead(dsl, lane, now))
        .as("scheduled head")
        .isEmpty();
    assertThat(TestPassSql.of(store).lanes().lanesWithDueHead(dsl, lane, now.plusSeconds(91)))
        .containsExactly(LANE);

    List<Long> parkedRun = enqueue(keys.get(1), 2);
    Claim claim = TestPassSql.of(store).lanes().claimLane(dsl, heads(10));
    assertThat(ids(claim)).containsExactly(parkedRun.get(0));
    TestPassSql.of(store).lanes().park(dsl, claim.token(), parkedRun.get(0), "poison", now);
    assertThat(TestPassSql.of(store).lanes().lanesWithDueHead(dsl, lane, now))
        .as("the row behind a parked head waits for the operator")
        .isEmpty();

    long held = store.enqueue(dsl, ordered(keys.get(2)));
    store.enqueue(dsl, ordered(otherKeys.get(0)));
    assertThat(TestPassSql.of(store).lanes().lanesWithDueHead(dsl, Set.of(LANE, OTHER_LANE), now))
        .containsExactlyInAnyOrder(LANE, OTHER_LANE);
    Claim second = TestPassSql.of(store).lanes().claimLane(dsl, heads(10));
    assertThat(ids(second)).containsExactly(held);
    assertThat(TestPassSql.of(store).lanes().lanesWithDueHead(dsl, Set.of(LANE, OTHER_LANE), now))
        .as("under a live claim")
        .containsExactly(OTHER_LANE);
    assertThat(TestPassSql.of(store).lanes().lanesWithDueHead(dsl, Set.of(LANE + 1), now))
        .isEmpty();
  }

  @Test
  void aClaimOverSeveralLanesTakesTheOldestHeadsOfThoseLanesOnly() {
    List<Long> a = enqueue(keys.get(0), 2);
    List<Long> b = enqueue(otherKeys.get(0), 2);
    List<Long> c = enqueue(keys.get(1), 1);
    long elsewhere = store.enqueue(dsl, ordered(thirdLaneKey));
    Set<Integer> both = Set.of(LANE, OTHER_LANE);

    Claim first =
        TestPassSql.of(store)
            .lanes()
            .claimLane(dsl, new LaneClaim(both, 2, 0, Set.of(), now(), CLAIM));
    assertThat(ids(first))
        .as("the two oldest heads, across the lanes")
        .containsExactly(a.get(0), b.get(0));
    Claim second =
        TestPassSql.of(store)
            .lanes()
            .claimLane(dsl, new LaneClaim(both, 10, 0, Set.of(), now(), CLAIM));
    assertThat(ids(second)).as("heads behind live claims wait").containsExactly(c.get(0));
    TestPassSql.of(store).outbox().deleteFenced(dsl, first.token(), ids(first));

    Claim runs =
        TestPassSql.of(store)
            .lanes()
            .claimLane(dsl, new LaneClaim(both, 10, 5, Set.of("memory"), now(), CLAIM));
    assertThat(ids(runs)).containsExactly(a.get(1), b.get(1));
    assertThat(runs.messages()).extracting(ClaimedMessage::lane).containsExactly(LANE, OTHER_LANE);
    assertThat(row(elsewhere).getClaimToken()).as("a lane not named").isNull();
  }

  @Test
  void aLaneClaimNamesAtLeastOneLaneAndNoNegativeOne() {
    assertThatThrownBy(() -> new LaneClaim(Set.of(), 1, 0, Set.of(), now(), CLAIM))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("lanes must name at least one lane");
    assertThatThrownBy(() -> new LaneClaim(Set.of(2, -1), 1, 0, Set.of(), now(), CLAIM))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("lane must not be negative, was -1");
  }

  @Test
  void aPassUnderSeveralLeasesTakesEachThatIsFreeOrItsOwn() {
    Duration minute = Duration.ofMinutes(1);
    LeaseRequest mine = new LeaseRequest("lane/1", "instance-a", minute);
    LeaseRequest theirs = new LeaseRequest("lane/2", "instance-a", minute);
    LeaseRequest fresh = new LeaseRequest("lane/3", "instance-a", minute);
    assertThat(
            dsl.transactionResult(
                    c -> TestPassSql.of(store).leases().tryAcquireLease(c.dsl(), mine))
                .acquired())
        .isTrue();
    assertThat(
            dsl.transactionResult(
                    c ->
                        TestPassSql.of(store)
                            .leases()
                            .tryAcquireLease(
                                c.dsl(), new LeaseRequest("lane/2", "instance-b", minute)))
                .acquired())
        .isTrue();

    List<LeaseOutcome> outcomes =
        dsl.transactionResult(
            c ->
                TestPassSql.of(store)
                    .leases()
                    .startLeasedPass(c.dsl(), List.of(mine, theirs, fresh)));
    assertThat(outcomes.get(0).acquired()).isTrue();
    assertThat(outcomes.get(1)).isInstanceOf(LeaseOutcome.HeldByOther.class);
    assertThat(outcomes.get(2).acquired()).as("a lease row created on first use").isTrue();
    assertThat(HealthReads.of(store).lease(dsl, "lane/2").orElseThrow().owner())
        .isEqualTo("instance-b");
    assertThat(HealthReads.of(store).lease(dsl, "lane/3").orElseThrow().owner())
        .isEqualTo("instance-a");

    assertThatThrownBy(
            () ->
                TestPassSql.of(store)
                    .leases()
                    .startLeasedPass(
                        dsl, List.of(mine, new LeaseRequest("lane/4", "instance-b", minute))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("must share owner and duration");
    assertThatThrownBy(
            () -> TestPassSql.of(store).leases().startLeasedPass(dsl, List.of(mine, mine)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("lease lane/1 is named twice");
    assertThatThrownBy(
            () -> TestPassSql.of(store).leases().startLeasedPass(dsl, List.<LeaseRequest>of()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("leases must name at least one lease");
  }

  @Test
  void parkedKeyFindsTheHeadOfAParkedKeyOnly() {
    List<Long> run = enqueue(keys.get(0), 2);
    Claim claim = TestPassSql.of(store).lanes().claimLane(dsl, heads(1));
    TestPassSql.of(store).lanes().park(dsl, claim.token(), run.get(0), "poison", now());

    ParkedKey parked = StoreOperations.of(store).parkedKey(dsl, keys.get(0)).orElseThrow();
    assertThat(parked.headId()).isEqualTo(run.get(0));
    assertThat(parked.lane()).isEqualTo(LANE);
    assertThat(StoreOperations.of(store).parkedKey(dsl, keys.get(1))).isEmpty();
  }

  @Test
  void orderedEnqueueSendsNoNotificationEvenWhenItCommits() throws Exception {
    try (Connection listener = listening()) {
      PGConnection pg = listener.unwrap(PGConnection.class);

      dsl.transaction(
          tx ->
              store.enqueue(
                  tx.dsl(),
                  List.of(ordered(keys.get(0)), ordered(keysInLane(LANE + 1, 1, 16).get(0)))));
      store.enqueue(dsl, ordered(keys.get(1)));
      store.enqueue(dsl, message().build());

      assertThat(store.options().laneNotifications()).isTrue();
      assertThat(notifications(pg, 500))
          .as("the writing transactions notified nobody: no NOTIFY lock in their commits")
          .isEmpty();
    }
  }

  @Test
  void notifyLanesSendsTheLanesAsOneListOnlyWhenItsTransactionCommits() throws Exception {
    try (Connection listener = listening()) {
      PGConnection pg = listener.unwrap(PGConnection.class);

      try {
        dsl.transaction(
            tx -> {
              TestPassSql.of(store).lanes().notifyLanes(tx.dsl(), Set.of(LANE));
              throw new IllegalStateException("roll back");
            });
      } catch (IllegalStateException expected) {
        // rolled back
      }
      assertThat(notifications(pg, 300)).as("a rollback sends nothing").isEmpty();

      TestPassSql.of(store).lanes().notifyLanes(dsl, Set.of(LANE + 1, LANE));
      List<PGNotification> received = notifications(pg, 5_000);
      assertThat(received).extracting(PGNotification::getName).containsOnly(store.laneChannel());
      assertThat(received)
          .extracting(PGNotification::getParameter)
          .containsExactly(LANE + "," + (LANE + 1));
    }
  }

  @Test
  void notifyLanesSplitsManyLanesIntoPayloadsThatPostgresAccepts() throws Exception {
    RelayerStore wide = RelayerStore.create(store.options().withLaneCount(StoreOptions.MAX_LANES));
    Set<Integer> all = new TreeSet<>();
    for (int lane = 0; lane < StoreOptions.MAX_LANES; lane++) {
      all.add(lane);
    }
    try (Connection listener = listening()) {
      PGConnection pg = listener.unwrap(PGConnection.class);

      TestPassSql.of(wide).lanes().notifyLanes(dsl, all);

      List<PGNotification> received = notifications(pg, 5_000);
      assertThat(received).hasSizeGreaterThan(1);
      Set<Integer> named = new TreeSet<>();
      for (PGNotification notification : received) {
        assertThat(notification.getParameter().getBytes(StandardCharsets.UTF_8).length)
            .isLessThanOrEqualTo(Lanes.MAX_PAYLOAD_BYTES);
        named.addAll(Lanes.lanesIn(notification.getParameter()));
      }
      assertThat(named).isEqualTo(all);
    }
    // The limit is PostgreSQL's: one byte more is refused.
    assertThatThrownBy(
            () ->
                dsl.select(
                        DSL.function(
                            "pg_notify",
                            Object.class,
                            DSL.val(store.laneChannel()),
                            DSL.val("1".repeat(Lanes.MAX_PAYLOAD_BYTES + 1))))
                    .fetch())
        .hasMessageContaining("payload string too long");
  }

  private Connection listening() throws Exception {
    Connection listener = fx.connect();
    listener.setAutoCommit(true);
    try (var statement = listener.createStatement()) {
      statement.execute("LISTEN " + store.laneChannel());
    }
    return listener;
  }

  /** Waits up to {@code millis} for the first notifications, then collects any that follow. */
  private static List<PGNotification> notifications(PGConnection pg, int millis) throws Exception {
    List<PGNotification> all = new ArrayList<>();
    PGNotification[] batch = pg.getNotifications(millis);
    while (batch != null && batch.length > 0) {
      all.addAll(List.of(batch));
      batch = pg.getNotifications(200);
    }
    return all;
  }

  @Test
  void laneChannelIsAShortLowerCaseNameOfTheTables() {
    String channel = store.laneChannel();
    assertThat(channel).matches("relayer_lanes_[0-9a-f]{16}");
    assertThat(channel).isEqualTo(Lanes.channelOf(store.names().qualified("outbox")));
    assertThat(RelayerStore.create(StoreOptions.of(SchemaOptions.of("other", "x_"))).laneChannel())
        .isNotEqualTo(channel);
  }

  @Test
  void orderedRowsOutsideTheLaneCountAreCounted() {
    RelayerStore wide = RelayerStore.create(store.options().withLaneCount(64));
    String high = keysInLane(40, 1, 64).get(0); // lane 40 of 64: beyond a 16-lane configuration
    wide.enqueue(dsl, ordered(high));
    assertThat(TestPassSql.of(store).lanes().orderedRowsOutsideLanes(dsl)).isEqualTo(1);
    assertThat(TestPassSql.of(wide).lanes().orderedRowsOutsideLanes(dsl)).isZero();
  }
}
