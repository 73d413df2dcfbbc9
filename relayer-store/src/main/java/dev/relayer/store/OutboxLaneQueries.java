package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.store.OutboxQueries.PARKED;
import static dev.relayer.store.OutboxQueries.PENDING;
import static dev.relayer.store.OutboxQueries.utc;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.firstValue;
import static org.jooq.impl.DSL.greatest;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.partitionBy;
import static org.jooq.impl.DSL.rowNumber;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.sum;
import static org.jooq.impl.DSL.val;
import static org.jooq.impl.DSL.when;

import dev.relayer.jooq.generated.tables.RelayerOutbox;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record3;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The outbox statements of ordered lanes: the lane claim, giving back rows a pass did not attempt,
 * the next instant a lane has work, and the notification that wakes a lane's owner.
 */
final class OutboxLaneQueries {

  private static final RelayerOutbox O = RELAYER_OUTBOX;

  private OutboxLaneQueries() {}

  /**
   * The lane claim, one statement:
   *
   * <ol>
   *   <li>{@code heads}: per key of the lane, its head — the lowest pending id — skipping keys with
   *       a parked row (a parked row is always its key's head);
   *   <li>{@code due_heads}: the heads that are eligible (pending, due, no live claim or retry
   *       hold), oldest first, at most {@code maxKeys};
   *   <li>{@code candidates}: the heads — and, when followers are asked for, the rows of those keys
   *       numbered from the head ({@code pos}) up to the first row that is not eligible or may not
   *       share the head's batch (another transport or destination, or a transport that does not
   *       keep batch order), at most {@code 1 + followers} per key;
   *   <li>{@code locked}: those rows locked {@code FOR UPDATE SKIP LOCKED}, eligibility checked
   *       again on the current row version;
   *   <li>{@code claimable}: per key, only the unbroken prefix of locked rows — if a head (or any
   *       row) was skipped, nothing after it is claimed;
   *   <li>{@code UPDATE ... RETURNING}: fresh token, expiry, {@code attempts + 1}.
   * </ol>
   *
   * <p>Picking heads with a grouped scan keeps the cost at one pass over the lane's pending rows;
   * only the rows of the chosen keys are numbered.
   */
  static Claim claim(DSLContext dsl, LaneClaim request) {
    UUID token = UUID.randomUUID();
    Instant expiresAt = request.now().plus(request.claimDuration());
    OffsetDateTime now = utc(request.now());
    int lane = request.lane();

    RelayerOutbox parked = O.as("parked_row");
    CommonTableExpression<Record2<String, Long>> heads =
        name("heads")
            .fields("ordering_key", "head_id")
            .as(
                select(O.ORDERING_KEY, min(O.ID))
                    .from(O)
                    .where(O.LANE.eq(lane))
                    .and(O.STATUS.eq(PENDING))
                    .andNotExists(
                        selectOne()
                            .from(parked)
                            .where(parked.LANE.eq(lane))
                            .and(parked.STATUS.eq(PARKED))
                            .and(parked.ORDERING_KEY.eq(O.ORDERING_KEY)))
                    .groupBy(O.ORDERING_KEY));
    Field<String> hKey = heads.field("ordering_key", String.class);
    Field<Long> hHead = heads.field("head_id", Long.class);
    CommonTableExpression<Record2<String, Long>> dueHeads =
        name("due_heads")
            .fields("ordering_key", "head_id")
            .as(
                select(hKey, hHead)
                    .from(heads)
                    .join(O)
                    .on(O.ID.eq(hHead))
                    .where(OutboxQueries.eligible(O, now))
                    .orderBy(hHead)
                    .limit(request.maxKeys()));
    Field<String> dKey = dueHeads.field("ordering_key", String.class);
    Field<Long> dHead = dueHeads.field("head_id", Long.class);

    CommonTableExpression<Record3<Long, String, Integer>> candidates =
        name("candidates")
            .fields("id", "ordering_key", "pos")
            .as(
                request.followers() == 0 || request.batchingTransports().isEmpty()
                    ? select(dHead, dKey, inline(1)).from(dueHeads)
                    : runs(lane, now, request, dueHeads, dKey, dHead));
    Field<Long> cId = candidates.field("id", Long.class);
    Field<String> cKey = candidates.field("ordering_key", String.class);
    Field<Integer> cPos = candidates.field("pos", Integer.class);

    RelayerOutbox lockable = O.as("lockable");
    CommonTableExpression<Record3<Long, String, Integer>> locked =
        name("locked")
            .fields("id", "ordering_key", "pos")
            .as(
                select(lockable.ID, cKey, cPos)
                    .from(candidates)
                    .join(lockable)
                    .on(lockable.ID.eq(cId))
                    .where(lockable.LANE.eq(lane))
                    .and(OutboxQueries.eligible(lockable, now))
                    .forUpdate()
                    .of(lockable)
                    .skipLocked());
    Field<Long> lId = locked.field("id", Long.class);
    Field<Integer> lPos = locked.field("pos", Integer.class);
    Table<?> lockedRuns =
        select(
                lId,
                lPos,
                rowNumber()
                    .over(partitionBy(locked.field("ordering_key", String.class)).orderBy(lPos))
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
    return OutboxQueries.stamp(
        dsl.with(heads, dueHeads, candidates, locked, claimable), claimable, token, expiresAt);
  }

  /**
   * The rows of the chosen keys from the head on, numbered, up to the first row that stops the run,
   * at most {@code 1 + followers} per key.
   */
  private static Select<Record3<Long, String, Integer>> runs(
      int lane,
      OffsetDateTime now,
      LaneClaim request,
      Table<?> dueHeads,
      Field<String> dKey,
      Field<Long> dHead) {
    Condition batching = O.TRANSPORT.eq(any(request.batchingTransports().toArray(String[]::new)));
    var byKey = partitionBy(O.ORDERING_KEY).orderBy(O.ID);
    Table<?> keyRows =
        select(
                O.ID,
                O.ORDERING_KEY,
                rowNumber().over(byKey).as("pos"),
                field(OutboxQueries.eligible(O, now)).as("eligible"),
                field(
                        batching
                            .and(O.TRANSPORT.eq(firstValue(O.TRANSPORT).over(byKey)))
                            .and(O.DESTINATION.eq(firstValue(O.DESTINATION).over(byKey))))
                    .as("joins_run"))
            .from(O)
            .join(dueHeads)
            .on(O.ORDERING_KEY.eq(dKey))
            .where(O.LANE.eq(lane))
            .and(O.STATUS.eq(PENDING))
            .and(O.ID.ge(dHead))
            .asTable("key_rows");
    Field<Long> kId = keyRows.field(O.ID);
    Field<String> kKey = keyRows.field(O.ORDERING_KEY);
    Field<Integer> kPos = keyRows.field("pos", Integer.class);
    Field<Integer> stops =
        when(
                keyRows
                    .field("eligible", Boolean.class)
                    .isTrue()
                    .and(kPos.eq(1).or(keyRows.field("joins_run", Boolean.class).isTrue())),
                inline(0))
            .otherwise(inline(1));
    Table<?> runs =
        select(kId, kKey, kPos, sum(stops).over(partitionBy(kKey).orderBy(kId)).as("blocked"))
            .from(keyRows)
            .asTable("runs");
    return select(runs.field(kId), runs.field(kKey), runs.field(kPos))
        .from(runs)
        .where(runs.field("blocked", BigDecimal.class).eq(BigDecimal.ZERO))
        .and(runs.field(kPos).le(1 + request.followers()));
  }

  /**
   * Gives claimed rows back untouched: clears the claim and refunds its attempt, fenced by the
   * token. For rows a lane pass claimed but did not send (an earlier row of the key failed, or the
   * pass ran out of time).
   */
  static int unclaim(DSLContext dsl, UUID token, Collection<Long> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return dsl.update(O)
        .setNull(O.CLAIM_TOKEN)
        .setNull(O.CLAIM_EXPIRES_AT)
        .set(O.ATTEMPTS, greatest(O.ATTEMPTS.minus(1), inline(0)))
        .where(O.ID.eq(any(ids.toArray(Long[]::new))))
        .and(O.CLAIM_TOKEN.eq(token))
        .execute();
  }

  /**
   * The earliest instant after {@code now} at which a pending row of the lane stops being held by a
   * schedule ({@code deliver_at}) or a claim or retry hold ({@code claim_expires_at}).
   */
  static Optional<Instant> nextDue(DSLContext dsl, int lane, Instant now) {
    OffsetDateTime at = utc(now);
    OffsetDateTime next =
        dsl.select(min(greatest(O.DELIVER_AT, O.CLAIM_EXPIRES_AT)))
            .from(O)
            .where(O.LANE.eq(lane))
            .and(O.STATUS.eq(PENDING))
            .and(O.DELIVER_AT.gt(at).or(O.CLAIM_EXPIRES_AT.gt(at)))
            .fetchOne(0, OffsetDateTime.class);
    return Optional.ofNullable(next).map(OffsetDateTime::toInstant);
  }

  /** How many ordered rows sit in lanes at or above {@code laneCount}, which no owner serves. */
  static long outsideLanes(DSLContext dsl, int laneCount) {
    return dsl.fetchCount(O, O.LANE.ge(laneCount));
  }

  /**
   * Sends one notification per lane on {@code channel} (payload: the lane number), in the caller's
   * transaction: PostgreSQL delivers them when it commits, and drops them if it rolls back.
   */
  static void notifyLanes(DSLContext dsl, String channel, Set<Integer> lanes) {
    if (lanes.isEmpty()) {
      return;
    }
    List<Field<?>> calls = new ArrayList<>(lanes.size());
    for (int lane : lanes) {
      calls.add(
          DSL.function("pg_notify", SQLDataType.OTHER, val(channel), val(Integer.toString(lane))));
    }
    dsl.select(calls).execute();
  }
}
