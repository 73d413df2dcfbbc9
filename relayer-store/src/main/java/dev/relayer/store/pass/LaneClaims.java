package dev.relayer.store.pass;

import static dev.relayer.jooq.generated.Tables.RELAYER_LEASES;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.store.internal.OutboxSql.IDS;
import static dev.relayer.store.internal.OutboxSql.LIMIT;
import static dev.relayer.store.internal.OutboxSql.NOW;
import static dev.relayer.store.internal.OutboxSql.PARKED;
import static dev.relayer.store.internal.OutboxSql.PENDING;
import static dev.relayer.store.internal.OutboxSql.eligible;
import static dev.relayer.store.internal.OutboxSql.eligibleById;
import static dev.relayer.store.internal.OutboxSql.utc;
import static dev.relayer.store.internal.StoreChecks.atMost;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.firstValue;
import static org.jooq.impl.DSL.greatest;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.lateral;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.notExists;
import static org.jooq.impl.DSL.orderBy;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.partitionBy;
import static org.jooq.impl.DSL.rowNumber;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectCount;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.sum;
import static org.jooq.impl.DSL.unnest;
import static org.jooq.impl.DSL.update;
import static org.jooq.impl.DSL.when;
import static org.jooq.impl.DSL.with;

import dev.relayer.api.InvalidInputException;
import dev.relayer.jooq.generated.tables.RelayerOutbox;
import dev.relayer.store.Lanes;
import dev.relayer.store.internal.Binds;
import dev.relayer.store.internal.ErrorText;
import dev.relayer.store.internal.OutboxSql;
import dev.relayer.store.internal.RenderedStatement;
import dev.relayer.store.internal.StoreJdbc;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record3;
import org.jooq.Record4;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * The outbox statements of ordered lanes: the lane claim, giving back rows a pass did not attempt,
 * whether and when a lane has work, and the notification that wakes a lane's owner. A lane pass
 * runs them on every wake-up, so they are rendered once per store (see {@link StoreJdbc}).
 */
public final class LaneClaims {

  private static final RelayerOutbox O = RELAYER_OUTBOX;
  private static final Param<Integer> LANE = param("lane", Integer.class);
  private static final Param<Integer[]> LANES = param("lanes", Integer[].class);
  private static final Param<String[]> TRANSPORTS = param("transports", String[].class);
  private static final Param<Integer> ROWS_PER_RUN = param("rowsPerRun", Integer.class);
  private static final Param<Long> ID = param("id", Long.class);
  private static final Param<String> ERROR = param("error", String.class);
  private static final Param<Integer> KEYS_PER_LANE = param("keysPerLane", Integer.class);
  private static final Param<Integer> WALK = param("walk", Integer.class);

  /**
   * Rows a lane's walk in id order reads at least before it turns to its keys (see {@link
   * #heads()}).
   */
  private static final int MIN_WALK = 100;

  /** Rows a lane's walk reads per head it is to find before it turns to its keys. */
  private static final int WALK_PER_HEAD = 2;

  private final StoreJdbc jdbc;
  private final String channel;
  private final int laneCount;

  /** The lane claim that claims heads only. */
  private final RenderedStatement claimHeads;

  /** The lane claim that also claims the rows after each head that may share its batch. */
  private final RenderedStatement claimRuns;

  private final RenderedStatement lanesWithDueHead;
  private final RenderedStatement unclaim;
  private final RenderedStatement nextDue;
  private final RenderedStatement renewAndNextDue;
  private final RenderedStatement outsideLanes;
  private final RenderedStatement park;

  /** {@code pg_notify(channel, payload)} per payload of {@link Lanes#payloads}. */
  private final StoreJdbc.Calls<String, String> notifications;

  LaneClaims(StoreJdbc jdbc, String channel, int laneCount) {
    this.jdbc = jdbc;
    this.channel = channel;
    this.laneCount = laneCount;
    this.notifications = jdbc.calls("pg_notify", String.class, String.class);
    this.claimHeads = jdbc.render(claim(false));
    this.claimRuns = jdbc.render(claim(true));
    DueHeads heads = heads();
    this.lanesWithDueHead =
        jdbc.render(
            DSL.withRecursive(heads.ctes())
                .selectDistinct(heads.result().field("lane", Integer.class))
                .from(heads.result()));
    this.unclaim =
        jdbc.render(
            update(O)
                .setNull(O.CLAIM_TOKEN)
                .setNull(O.CLAIM_EXPIRES_AT)
                .set(O.ATTEMPTS, greatest(O.ATTEMPTS.minus(inline(1)), inline(0)))
                .where(O.ID.eq(any(IDS)))
                .and(O.CLAIM_TOKEN.eq(OutboxSql.TOKEN)));
    // Per lane asked, a subquery on that lane alone: see wantedLanes().
    Table<?> wanted = wantedLanes();
    Field<Integer> lane = wanted.field("lane", Integer.class);
    Field<OffsetDateTime> nextDue =
        field(
            select(min(greatest(O.DELIVER_AT, O.CLAIM_EXPIRES_AT)))
                .from(O)
                .where(O.LANE.eq(lane))
                .and(O.STATUS.eq(inline(PENDING)))
                .and(O.DELIVER_AT.gt(NOW).or(O.CLAIM_EXPIRES_AT.gt(NOW))));
    this.nextDue = jdbc.render(select(lane, nextDue).from(wanted));
    CommonTableExpression<Record1<String>> renewed =
        name("renewed")
            .fields("name")
            .as(LeaseTable.renewal().returningResult(RELAYER_LEASES.NAME));
    // A data-modifying WITH runs whether or not the query reads it, and whatever it returns.
    this.renewAndNextDue = jdbc.render(with(renewed).select(lane, nextDue).from(wanted));
    this.outsideLanes = jdbc.render(selectCount().from(O).where(O.LANE.ge(LANE)));
    this.park =
        jdbc.render(
            update(O)
                .set(O.STATUS, inline(PARKED))
                .set(O.PARKED_AT, NOW)
                .set(O.LAST_ERROR, ERROR)
                .set(O.CLAIM_TOKEN, inline((UUID) null))
                .set(O.CLAIM_EXPIRES_AT, inline((OffsetDateTime) null))
                .where(O.ID.eq(ID))
                .and(O.CLAIM_TOKEN.eq(OutboxSql.TOKEN))
                .and(O.ORDERING_KEY.isNotNull()));
  }

  /**
   * The CTEs that find the due heads, in order, and the last of them, {@code heads(lane,
   * ordering_key, head_id, more)}: {@code more} is false where the key has no row after its head.
   */
  private record DueHeads(
      List<CommonTableExpression<?>> ctes,
      CommonTableExpression<Record4<Integer, String, Long, Boolean>> result) {}

  /**
   * Per lane of {@code :lanes}, its keys' heads that are due — a key's head is its lowest pending
   * id; it is due when pending, due and free ({@link OutboxSql#eligible}) and the key has no parked
   * row — found through indexes, at a cost that follows the heads asked for, not the lane's
   * backlog. Six CTEs, in order; the last, {@code heads(lane, ordering_key, head_id)}, is the
   * result:
   *
   * <ol>
   *   <li>{@code parked_keys}: the lanes' parked keys, one scan of the parked index per lane;
   *   <li>{@code walk}: per lane, its first {@code :walk} pending rows in id order, through the
   *       pending index. The walk starts at the lane's lowest pending id, so a key's first row in
   *       it is the key's head: no row is checked against the rows before it.
   *   <li>{@code walked}: per lane, the oldest {@code :keysPerLane} heads in the walk that are due,
   *       none of a parked key. A backlog written over many keys has its heads among its oldest
   *       rows, so a walk of a few rows per head asked for finds them.
   *   <li>{@code capped}: the lanes whose walk read {@code :walk} rows and found fewer heads (few
   *       keys, a key with many rows ahead of the others, or heads held by retries or schedules);
   *   <li>{@code lane_keys}, recursive: per capped lane, every key once with its head, one descent
   *       of the lane-key index {@code (lane, ordering_key, id)} per key (a loose index scan);
   *   <li>{@code heads}: the walked heads of the lanes not capped, and the due heads of the capped
   *       lanes' keys.
   * </ol>
   *
   * So a claim reads {@code :walk} rows of each lane and, where those hold too few heads, one index
   * descent per key of the lane: never every waiting row. Rows this transaction deleted still have
   * index entries, which each walk and descent steps over; a pass deletes at most {@code
   * claimsPerPass} claims' rows before it commits.
   */
  private static DueHeads heads() {
    RelayerOutbox parkedRow = O.as("parked_row");
    Table<?> parkedWanted = wantedLanes();
    Table<?> lanesParked =
        lateral(
                select(parkedRow.ORDERING_KEY)
                    .from(parkedRow)
                    .where(parkedRow.LANE.eq(parkedWanted.field("lane", Integer.class)))
                    .and(parkedRow.STATUS.eq(inline(PARKED))))
            .as("lanes_parked");
    CommonTableExpression<Record2<Integer, String>> parked =
        name("parked_keys")
            .fields("lane", "ordering_key")
            .asMaterialized(
                select(
                        parkedWanted.field("lane", Integer.class),
                        lanesParked.field(parkedRow.ORDERING_KEY))
                    .from(parkedWanted)
                    .crossJoin(lanesParked));
    Table<?> wanted = wantedLanes();
    Field<Integer> lane = wanted.field("lane", Integer.class);
    Table<?> walkRows =
        lateral(
                select(O.ORDERING_KEY, O.ID, field(eligible(O)).as("free"))
                    .from(O)
                    .where(O.LANE.eq(lane))
                    .and(O.STATUS.eq(inline(PENDING)))
                    .orderBy(O.ID)
                    .limit(WALK))
            .as("walk_rows");
    CommonTableExpression<Record4<Integer, String, Long, Boolean>> walk =
        name("walk")
            .fields("lane", "ordering_key", "id", "free")
            .asMaterialized(
                select(
                        lane,
                        walkRows.field(O.ORDERING_KEY),
                        walkRows.field(O.ID.getName(), Long.class),
                        walkRows.field("free", Boolean.class))
                    .from(wanted)
                    .crossJoin(walkRows));
    Field<Integer> wLane = walk.field("lane", Integer.class);
    Field<String> wKey = walk.field("ordering_key", String.class);
    Field<Long> wId = walk.field("id", Long.class);
    // The walk starts at the lane's lowest pending id, so a key's first row in it is its head.
    Table<?> firsts =
        select(
                wLane,
                wKey,
                wId,
                walk.field("free", Boolean.class),
                rowNumber().over(partitionBy(wLane, wKey).orderBy(wId)).as("nth"),
                count().over(partitionBy(wLane, wKey)).as("key_rows"),
                count().over(partitionBy(wLane)).as("lane_rows"))
            .from(walk)
            .asTable("firsts");
    Field<Integer> fLane = firsts.field(wLane);
    Field<String> fKey = firsts.field(wKey);
    Field<Long> fId = firsts.field(wId);
    // A key may have rows after its head unless the walk read the whole lane and saw none.
    Field<Boolean> more =
        field(
            firsts
                .field("key_rows", Integer.class)
                .gt(inline(1))
                .or(firsts.field("lane_rows", Integer.class).ge(WALK)));
    Table<?> dueFirsts =
        select(
                fLane,
                fKey,
                fId,
                more.as("more"),
                rowNumber().over(partitionBy(fLane).orderBy(fId)).as("rank"))
            .from(firsts)
            .where(firsts.field("nth", Integer.class).eq(inline(1)))
            .and(firsts.field("free", Boolean.class).isTrue())
            .and(notParked(parked, fLane, fKey))
            .asTable("due_firsts");
    CommonTableExpression<Record4<Integer, String, Long, Boolean>> walked =
        name("walked")
            .fields("lane", "ordering_key", "head_id", "more")
            .as(
                select(
                        dueFirsts.field(fLane),
                        dueFirsts.field(fKey),
                        dueFirsts.field(fId),
                        dueFirsts.field("more", Boolean.class))
                    .from(dueFirsts)
                    .where(dueFirsts.field("rank", Integer.class).le(KEYS_PER_LANE)));
    Field<Integer> walkedLane = walked.field("lane", Integer.class);

    Table<?> capWanted = wantedLanes();
    Field<Integer> capLane = capWanted.field("lane", Integer.class);
    Field<Integer> headsWalked = field(selectCount().from(walked).where(walkedLane.eq(capLane)));
    Field<Integer> rowsWalked = field(selectCount().from(walk).where(wLane.eq(capLane)));
    CommonTableExpression<Record1<Integer>> capped =
        name("capped")
            .fields("lane")
            .as(
                select(capLane)
                    .from(capWanted)
                    .where(rowsWalked.ge(WALK))
                    .and(headsWalked.lt(KEYS_PER_LANE)));
    Field<Integer> cappedLane = capped.field("lane", Integer.class);

    Table<?> laneKeysTable = DSL.table(name("lane_keys"));
    Field<Integer> lkLane = field(name("lane_keys", "lane"), Integer.class);
    Field<String> lkKey = field(name("lane_keys", "ordering_key"), String.class);
    Table<?> firstKey =
        lateral(firstKeyAfter(cappedLane, O.ORDERING_KEY.isNotNull())).as("first_key");
    Table<?> nextKey = lateral(firstKeyAfter(lkLane, O.ORDERING_KEY.gt(lkKey))).as("next_key");
    CommonTableExpression<Record3<Integer, String, Long>> laneKeys =
        name("lane_keys")
            .fields("lane", "ordering_key", "head_id")
            .as(
                select(
                        cappedLane,
                        firstKey.field(O.ORDERING_KEY),
                        firstKey.field(O.ID.getName(), Long.class))
                    .from(capped)
                    .crossJoin(firstKey)
                    .unionAll(
                        select(
                                lkLane,
                                nextKey.field(O.ORDERING_KEY),
                                nextKey.field(O.ID.getName(), Long.class))
                            .from(laneKeysTable)
                            .crossJoin(nextKey)));
    Field<Integer> kLane = laneKeys.field("lane", Integer.class);
    Field<String> kKey = laneKeys.field("ordering_key", String.class);
    Field<Long> kHead = laneKeys.field("head_id", Long.class);
    // Each head is looked up by its primary key from a LATERAL subquery that the planner may not
    // pull up (OFFSET 0): the statements run their generic plan, often made on a nearly empty
    // table, and as a plain join that plan may scan every pending row once per head.
    RelayerOutbox headRow = O.as("head_row");
    Table<?> dueCheck =
        lateral(
                selectOne()
                    .from(headRow)
                    .where(headRow.ID.eq(kHead))
                    .and(eligibleById(headRow))
                    .offset(inline(0)))
            .as("due_check");
    CommonTableExpression<Record4<Integer, String, Long, Boolean>> heads =
        name("heads")
            .fields("lane", "ordering_key", "head_id", "more")
            .as(
                select(
                        walkedLane,
                        walked.field("ordering_key", String.class),
                        walked.field("head_id", Long.class),
                        walked.field("more", Boolean.class))
                    .from(walked)
                    .where(notExists(selectOne().from(capped).where(cappedLane.eq(walkedLane))))
                    .unionAll(
                        select(kLane, kKey, kHead, inline(true))
                            .from(laneKeys)
                            .crossJoin(dueCheck)
                            .where(notParked(parked, kLane, kKey))));
    return new DueHeads(List.of(parked, walk, walked, capped, laneKeys, heads), heads);
  }

  /**
   * The first pending row, in (key, id) order, of lane {@code lane} whose key meets {@code which}:
   * one descent of the lane-key index.
   */
  private static Select<Record2<String, Long>> firstKeyAfter(Field<Integer> lane, Condition which) {
    return select(O.ORDERING_KEY, O.ID)
        .from(O)
        .where(O.LANE.eq(lane))
        .and(O.STATUS.eq(inline(PENDING)))
        .and(which)
        .orderBy(O.ORDERING_KEY, O.ID)
        .limit(inline(1));
  }

  /**
   * No row of key {@code key} in lane {@code lane} is parked: looked up in {@code parked}, the
   * parked keys of the lanes, read once per lane from the parked index (a lane has few).
   */
  private static Condition notParked(
      CommonTableExpression<Record2<Integer, String>> parked,
      Field<Integer> lane,
      Field<String> key) {
    return notExists(
        selectOne()
            .from(parked)
            .where(parked.field("lane", Integer.class).eq(lane))
            .and(parked.field("ordering_key", String.class).eq(key)));
  }

  /**
   * The lanes {@code :lanes} as a table {@code wanted(lane)}. A statement over several lanes reads
   * each through a subquery (or {@code LATERAL} join) on {@code lane = wanted.lane}: the prepared
   * statements run their generic plan, and for {@code lane = ANY(:lanes)} that plan estimates most
   * of the table and reads all of it, unordered rows included, where one lane's rows are found
   * through the pending index.
   */
  private static Table<?> wantedLanes() {
    return unnest(LANES).as("wanted", "lane");
  }

  /**
   * The lane claim, one statement:
   *
   * <ol>
   *   <li>{@code walked}, {@code capped}, {@code lane_keys}, {@code heads} ({@link #heads()}): per
   *       lane, the heads of its keys that are due (pending, due, no live claim or retry hold, no
   *       parked row in the key), the oldest {@code keysPerLane} of them;
   *   <li>{@code due_heads}: of those, the oldest {@code maxKeys} ({@code limit}), across lanes;
   *   <li>{@code candidates}: the heads — and, when followers are asked for, the rows of those keys
   *       numbered from the head ({@code pos}) up to the first row that is not eligible or may not
   *       join the head's run (another transport or destination, or a transport not among {@code
   *       :transports}), at most {@code 1 + followers} ({@code rowsPerRun}) per key;
   *   <li>{@code locked}: those rows locked {@code FOR UPDATE SKIP LOCKED}, eligibility checked
   *       again on the current row version;
   *   <li>{@code claimable}: per key, only the unbroken prefix of locked rows — if a head (or any
   *       row) was skipped, nothing after it is claimed;
   *   <li>{@code UPDATE ... RETURNING}: fresh token, expiry, {@code attempts + 1}.
   * </ol>
   *
   * <p>Finding the heads costs about the heads found (see {@link #heads()}); only the rows of the
   * chosen keys are numbered, at most {@code rowsPerRun} of each.
   */
  private static Query claim(boolean withRuns) {
    DueHeads found = heads();
    List<CommonTableExpression<?>> ctes = new ArrayList<>(found.ctes());
    CommonTableExpression<Record4<Integer, String, Long, Boolean>> heads = found.result();
    Field<Integer> hLane = heads.field("lane", Integer.class);
    Field<String> hKey = heads.field("ordering_key", String.class);
    Field<Long> hHead = heads.field("head_id", Long.class);
    Field<Boolean> hMore = heads.field("more", Boolean.class);
    CommonTableExpression<Record4<Integer, String, Long, Boolean>> dueHeads =
        name("due_heads")
            .fields("lane", "ordering_key", "head_id", "more")
            .asMaterialized(
                select(hLane, hKey, hHead, hMore).from(heads).orderBy(hHead).limit(LIMIT));
    Field<Integer> dLane = dueHeads.field("lane", Integer.class);
    Field<String> dKey = dueHeads.field("ordering_key", String.class);
    Field<Long> dHead = dueHeads.field("head_id", Long.class);

    CommonTableExpression<Record4<Long, Integer, String, Integer>> candidates =
        name("candidates")
            .fields("id", "lane", "ordering_key", "pos")
            .as(
                withRuns
                    ? runs(dueHeads, dLane, dKey, dHead)
                        .unionAll(
                            select(dHead, dLane, dKey, inline(1))
                                .from(dueHeads)
                                .where(dueHeads.field("more", Boolean.class).isFalse()))
                    : select(dHead, dLane, dKey, inline(1)).from(dueHeads));
    Field<Long> cId = candidates.field("id", Long.class);
    Field<Integer> cLane = candidates.field("lane", Integer.class);
    Field<String> cKey = candidates.field("ordering_key", String.class);
    Field<Integer> cPos = candidates.field("pos", Integer.class);

    RelayerOutbox lockable = O.as("lockable");
    Table<?> lockedRow =
        lateral(
                select(lockable.ID)
                    .from(lockable)
                    .where(lockable.ID.eq(cId))
                    .and(lockable.LANE.eq(cLane))
                    .and(eligible(lockable))
                    .forUpdate()
                    .skipLocked())
            .as("locked_row");
    CommonTableExpression<Record4<Long, Integer, String, Integer>> locked =
        name("locked")
            .fields("id", "lane", "ordering_key", "pos")
            .as(
                select(lockedRow.field(lockable.ID), cLane, cKey, cPos)
                    .from(candidates)
                    .crossJoin(lockedRow));
    Field<Long> lId = locked.field("id", Long.class);
    Field<Integer> lPos = locked.field("pos", Integer.class);
    Table<?> lockedRuns =
        select(
                lId,
                lPos,
                rowNumber()
                    .over(
                        partitionBy(
                                locked.field("lane", Integer.class),
                                locked.field("ordering_key", String.class))
                            .orderBy(lPos))
                    .as("rank_in_key"))
            .from(locked)
            .asTable("locked_runs");
    CommonTableExpression<Record1<Long>> claimable =
        name("claimable")
            .fields("id")
            .as(
                select(lockedRuns.field(lId))
                    .from(lockedRuns)
                    .where(
                        lockedRuns.field("rank_in_key", Integer.class).eq(lockedRuns.field(lPos))));
    ctes.addAll(List.of(dueHeads, candidates, locked));
    return OutboxSql.stampRecursive(claimable, ctes);
  }

  /**
   * The rows of the chosen keys from the head on, numbered, up to the first row that stops the run,
   * at most {@code rowsPerRun} per key: per key, at most that many rows read from the lane-key
   * index, in id order.
   */
  private static Select<Record4<Long, Integer, String, Integer>> runs(
      Table<?> dueHeads, Field<Integer> dLane, Field<String> dKey, Field<Long> dHead) {
    Condition inRuns = O.TRANSPORT.eq(any(TRANSPORTS));
    var inKey = orderBy(O.ID);
    Table<?> keyRows =
        lateral(
                select(
                        O.ID,
                        rowNumber().over(inKey).as("pos"),
                        field(eligible(O)).as("eligible"),
                        field(
                                inRuns
                                    .and(O.TRANSPORT.eq(firstValue(O.TRANSPORT).over(inKey)))
                                    .and(O.DESTINATION.eq(firstValue(O.DESTINATION).over(inKey))))
                            .as("joins_run"))
                    .from(O)
                    .where(O.LANE.eq(dLane))
                    .and(O.ORDERING_KEY.eq(dKey))
                    .and(O.STATUS.eq(inline(PENDING)))
                    .and(O.ID.ge(dHead))
                    .orderBy(O.ID)
                    .limit(ROWS_PER_RUN))
            .as("key_rows");
    Field<Long> kId = keyRows.field(O.ID.getName(), Long.class);
    Field<Integer> kPos = keyRows.field("pos", Integer.class);
    Field<Integer> stops =
        when(
                keyRows
                    .field("eligible", Boolean.class)
                    .isTrue()
                    .and(kPos.eq(inline(1)).or(keyRows.field("joins_run", Boolean.class).isTrue())),
                inline(0))
            .otherwise(inline(1));
    Table<?> runs =
        select(
                kId.as("id"),
                dLane.as("lane"),
                dKey.as("ordering_key"),
                kPos.as("pos"),
                sum(stops).over(partitionBy(dLane, dKey).orderBy(kPos)).as("blocked"))
            .from(dueHeads)
            .crossJoin(keyRows)
            // A head whose key has no row after it needs no look at the lane-key index.
            .where(dueHeads.field("more", Boolean.class).isTrue())
            .asTable("runs");
    return select(
            runs.field("id", Long.class),
            runs.field("lane", Integer.class),
            runs.field("ordering_key", String.class),
            runs.field("pos", Integer.class))
        .from(runs)
        .where(runs.field("blocked", BigDecimal.class).eq(inline(BigDecimal.ZERO)))
        .and(runs.field("pos", Integer.class).le(ROWS_PER_RUN));
  }

  public Claim.Stamped claimLane(DSLContext dsl, LaneClaim request) {
    Objects.requireNonNull(request, "request");
    UUID token = UUID.randomUUID();
    Instant expiresAt = request.now().plus(request.claimDuration());
    boolean runs = request.followers() > 0 && !request.runTransports().isEmpty();
    Binds binds =
        OutboxSql.claimBinds(request.now(), token, expiresAt)
            .set(LANES, lanes(request.lanes()))
            .set(LIMIT, request.maxKeys())
            .set(KEYS_PER_LANE, Math.min(request.maxKeys(), request.maxKeysPerLane()))
            .set(WALK, walk(request.maxKeysPerLane()));
    if (runs) {
      binds
          .set(TRANSPORTS, request.runTransports().toArray(String[]::new))
          .set(ROWS_PER_RUN, 1 + request.followers());
    }
    return new Claim.Stamped(
        token, expiresAt, OutboxClaims.claimed(jdbc, dsl, runs ? claimRuns : claimHeads, binds, 0));
  }

  /**
   * The lanes of {@code lanes} in which some key has a head that is eligible at {@code now}: where
   * a claim would find a row, leaving aside rows other transactions hold.
   */
  public Set<Integer> lanesWithDueHead(DSLContext dsl, Set<Integer> lanes, Instant now) {
    requireLanes(lanes);
    Objects.requireNonNull(now, "now");
    return Set.copyOf(
        jdbc.list(
            dsl,
            lanesWithDueHead,
            new Binds()
                .set(LANES, lanes(lanes))
                .set(NOW, utc(now))
                .set(KEYS_PER_LANE, 1)
                .set(WALK, walk(1)),
            row -> row.getInt(1)));
  }

  /**
   * Parks a key's head {@code id} under {@code token}, fenced by it, and clears the claim: the key
   * is held until an operator acts. False when the claim was lost.
   */
  public boolean park(DSLContext dsl, UUID token, long id, String error, Instant parkedAt) {
    Binds binds =
        new Binds()
            .set(ID, id)
            .set(OutboxSql.TOKEN, token)
            .set(ERROR, ErrorText.stored(error))
            .set(NOW, utc(parkedAt));
    return jdbc.update(dsl, park, binds) == 1;
  }

  /**
   * Gives claimed rows back untouched: clears the claim and refunds its attempt, fenced by the
   * token. For rows a lane pass claimed but did not send (an earlier row of the key failed, or the
   * pass ran out of time).
   */
  public int unclaim(DSLContext dsl, UUID token, Collection<Long> ids) {
    return atMost("unclaim", OutboxSql.updateClaimed(jdbc, dsl, unclaim, token, ids), ids.size());
  }

  /**
   * Per lane of {@code lanes}: the earliest instant after {@code now} at which a pending row of the
   * lane stops being held by a schedule ({@code deliver_at}) or a claim or retry hold ({@code
   * claim_expires_at}); a lane with no such row is absent.
   */
  public Map<Integer, Instant> nextDueInLanes(DSLContext dsl, Set<Integer> lanes, Instant now) {
    requireLanes(lanes);
    Objects.requireNonNull(now, "now");
    return dueByLane(dsl, nextDue, new Binds().set(LANES, lanes(lanes)).set(NOW, utc(now)));
  }

  /**
   * Renews {@code leases} ({@link LeaseTable#renewal}; one owner and duration) and finds the {@link
   * #nextDueInLanes} of {@code lanes}, in one statement: the end of a lane pass.
   */
  public Map<Integer, Instant> renewLeasesAndFindNextDue(
      DSLContext dsl, List<LeaseRequest> leases, Set<Integer> lanes, Instant now) {
    LeaseTable.sameOwner(leases);
    Objects.requireNonNull(lanes, "lanes");
    Objects.requireNonNull(now, "now");
    Binds binds = LeaseTable.binds(leases).set(LANES, lanes(lanes)).set(NOW, utc(now));
    return dueByLane(dsl, renewAndNextDue, binds);
  }

  /** Reads rows of (lane, next due or null); a lane with nothing waiting for time is left out. */
  private Map<Integer, Instant> dueByLane(
      DSLContext dsl, RenderedStatement statement, Binds binds) {
    Map<Integer, Instant> due = new HashMap<>();
    for (LaneDue row :
        jdbc.list(
            dsl,
            statement,
            binds,
            row -> new LaneDue(row.getInt(1), row.getObject(2, OffsetDateTime.class)))) {
      if (row.at() != null) {
        due.put(row.lane(), row.at().toInstant());
      }
    }
    return due;
  }

  private record LaneDue(int lane, OffsetDateTime at) {}

  /**
   * How many rows a lane's walk reads before it turns to the lane's keys (see {@link #heads()}).
   */
  private static int walk(int keysPerLane) {
    return (int)
        Math.min(Integer.MAX_VALUE, Math.max(MIN_WALK, (long) WALK_PER_HEAD * keysPerLane));
  }

  private static Integer[] lanes(Set<Integer> lanes) {
    return lanes.toArray(Integer[]::new);
  }

  /**
   * Ordered rows in lanes at or above this store's lane count: written by an instance configured
   * with more lanes. No lane owner of this configuration sends them.
   */
  public long orderedRowsOutsideLanes(DSLContext dsl) {
    return jdbc.first(dsl, outsideLanes, new Binds().set(LANE, laneCount), row -> row.getLong(1))
        .orElseThrow();
  }

  /**
   * Notifies {@code lanes} on {@code channel} in one statement, one notification per payload of
   * {@link Lanes#payloads}, in the caller's transaction: PostgreSQL delivers them when it commits,
   * and drops them if it rolls back.
   */
  public void notifyLanes(DSLContext dsl, Set<Integer> lanes) {
    notifications.run(dsl, channel, Lanes.payloads(Set.copyOf(lanes)));
  }

  private static Set<Integer> requireLanes(Set<Integer> lanes) {
    if (Objects.requireNonNull(lanes, "lanes").isEmpty()) {
      throw new InvalidInputException("lanes must name at least one lane");
    }
    return lanes;
  }
}
