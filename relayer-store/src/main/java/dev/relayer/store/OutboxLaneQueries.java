package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.store.OutboxQueries.PARKED;
import static dev.relayer.store.OutboxQueries.PENDING;
import static dev.relayer.store.OutboxQueries.eligible;
import static dev.relayer.store.OutboxQueries.utc;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.denseRank;
import static org.jooq.impl.DSL.falseCondition;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.firstValue;
import static org.jooq.impl.DSL.greatest;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.orderBy;
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
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record1;
import org.jooq.Record3;
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
   *   <li>{@code lane_rows}: the lane's pending rows, except keys with a parked row (a parked row
   *       is always its key's head), each with its position in its key ({@code pos}), whether it is
   *       eligible, and whether it may share its head's batch (same transport and destination, on a
   *       batching transport);
   *   <li>{@code runs}: a running count of rows that stop the key's run ({@code blocked}) and the
   *       key's head id — a head that is not eligible blocks its whole key;
   *   <li>{@code ranked}: rows not blocked and within {@code 1 + followers} of their head, keys
   *       ranked by head id (oldest first);
   *   <li>{@code candidates}: the rows of the first {@code maxKeys} keys;
   *   <li>{@code locked}: those rows locked {@code FOR UPDATE SKIP LOCKED}, eligibility checked
   *       again on the current row version;
   *   <li>{@code claimable}: per key, only the unbroken prefix of locked rows — if a head (or any
   *       row) was skipped, nothing after it is claimed;
   *   <li>{@code UPDATE ... RETURNING}: fresh token, expiry, {@code attempts + 1}.
   * </ol>
   */
  static Claim claim(DSLContext dsl, LaneClaim request) {
    UUID token = UUID.randomUUID();
    Instant expiresAt = request.now().plus(request.claimDuration());
    OffsetDateTime now = utc(request.now());
    int lane = request.lane();

    RelayerOutbox parked = O.as("parked_row");
    Condition batching =
        request.batchingTransports().isEmpty() || request.followers() == 0
            ? falseCondition()
            : O.TRANSPORT.eq(any(request.batchingTransports().toArray(String[]::new)));
    var byKey = partitionBy(O.ORDERING_KEY).orderBy(O.ID);
    Table<?> laneRows =
        select(
                O.ID,
                O.ORDERING_KEY,
                rowNumber().over(byKey).as("pos"),
                field(eligible(now)).as("eligible"),
                field(
                        batching
                            .and(O.TRANSPORT.eq(firstValue(O.TRANSPORT).over(byKey)))
                            .and(O.DESTINATION.eq(firstValue(O.DESTINATION).over(byKey))))
                    .as("joins_run"))
            .from(O)
            .where(O.LANE.eq(lane))
            .and(O.STATUS.eq(PENDING))
            .andNotExists(
                selectOne()
                    .from(parked)
                    .where(parked.LANE.eq(lane))
                    .and(parked.STATUS.eq(PARKED))
                    .and(parked.ORDERING_KEY.eq(O.ORDERING_KEY)))
            .asTable("lane_rows");
    Field<Long> lrId = laneRows.field(O.ID);
    Field<String> lrKey = laneRows.field(O.ORDERING_KEY);
    Field<Integer> lrPos = laneRows.field("pos", Integer.class);
    Field<Boolean> lrEligible = laneRows.field("eligible", Boolean.class);
    Field<Boolean> lrJoins = laneRows.field("joins_run", Boolean.class);

    Field<Integer> stops =
        when(lrEligible.isTrue().and(lrPos.eq(1).or(lrJoins.isTrue())), inline(0))
            .otherwise(inline(1));
    Table<?> runs =
        select(
                lrId,
                lrKey,
                lrPos,
                sum(stops).over(partitionBy(lrKey).orderBy(lrId)).as("blocked"),
                min(lrId).over(partitionBy(lrKey)).as("head_id"))
            .from(laneRows)
            .asTable("runs");
    Field<Long> rId = runs.field(lrId);
    Field<String> rKey = runs.field(lrKey);
    Field<Integer> rPos = runs.field(lrPos);
    Field<BigDecimal> rBlocked = runs.field("blocked", BigDecimal.class);
    Field<Long> rHead = runs.field("head_id", Long.class);

    Table<?> ranked =
        select(rId, rKey, rPos, denseRank().over(orderBy(rHead)).as("key_rank"))
            .from(runs)
            .where(rBlocked.eq(BigDecimal.ZERO))
            .and(rPos.le(1 + request.followers()))
            .asTable("ranked");
    CommonTableExpression<Record3<Long, String, Integer>> candidates =
        name("candidates")
            .fields("id", "ordering_key", "pos")
            .as(
                select(ranked.field(rId), ranked.field(rKey), ranked.field(rPos))
                    .from(ranked)
                    .where(ranked.field("key_rank", Integer.class).le(request.maxKeys())));
    Field<Long> cId = candidates.field("id", Long.class);
    Field<String> cKey = candidates.field("ordering_key", String.class);
    Field<Integer> cPos = candidates.field("pos", Integer.class);

    CommonTableExpression<Record1<Long>> locked =
        name("locked")
            .fields("id")
            .as(
                select(O.ID)
                    .from(O)
                    .where(O.ID.in(select(cId).from(candidates)))
                    .and(O.LANE.eq(lane))
                    .and(eligible(now))
                    .forUpdate()
                    .skipLocked());
    Field<Long> lockedId = locked.field("id", Long.class);

    Table<?> lockedRuns =
        select(cId, cPos, rowNumber().over(partitionBy(cKey).orderBy(cPos)).as("rank_in_key"))
            .from(candidates)
            .join(locked)
            .on(lockedId.eq(cId))
            .asTable("locked_runs");
    CommonTableExpression<Record1<Long>> claimable =
        name("claimable")
            .fields("id")
            .as(
                select(lockedRuns.field(cId))
                    .from(lockedRuns)
                    .where(
                        lockedRuns.field("rank_in_key", Integer.class).eq(lockedRuns.field(cPos))));
    Field<Long> claimableId = claimable.field("id", Long.class);

    List<ClaimedMessage> claimed =
        dsl.with(candidates, locked, claimable)
            .update(O)
            .set(O.CLAIM_TOKEN, token)
            .set(O.CLAIM_EXPIRES_AT, utc(expiresAt))
            .set(O.ATTEMPTS, O.ATTEMPTS.plus(1))
            .from(claimable)
            .where(O.ID.eq(claimableId))
            .returning()
            .fetch()
            .map(OutboxQueries::toClaimed);
    List<ClaimedMessage> ordered = new ArrayList<>(claimed);
    ordered.sort(Comparator.comparingLong(ClaimedMessage::id));
    return new Claim(token, expiresAt, ordered);
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
