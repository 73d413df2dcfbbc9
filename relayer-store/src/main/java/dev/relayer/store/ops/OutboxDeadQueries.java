package dev.relayer.store.ops;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX_DEAD;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.orderBy;
import static org.jooq.impl.DSL.rowNumber;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.val;

import dev.relayer.jooq.generated.tables.RelayerOutbox;
import dev.relayer.jooq.generated.tables.RelayerOutboxDead;
import dev.relayer.store.internal.DeadMoves;
import dev.relayer.store.internal.OutboxSql;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import org.jooq.CaseWhenStep;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * Every statement that writes the dead table: the move from the outbox, the replay back to it and
 * the operator's purge. The operator's reads are {@link DeadRowQueries}.
 */
final class OutboxDeadQueries {
  private static final RelayerOutbox O = RELAYER_OUTBOX;

  private static final RelayerOutboxDead D = RELAYER_OUTBOX_DEAD;

  private OutboxDeadQueries() {}

  /**
   * Moves the parked head {@code id} to the dead table (operator action), keeping its last error
   * and fingerprinting it.
   */
  static int moveParked(DSLContext dsl, long id, String reason, Instant failedAt) {
    Condition parkedHead = O.ID.eq(id).and(O.STATUS.eq(OutboxSql.PARKED));
    var lastError = dsl.select(O.LAST_ERROR).from(O).where(parkedHead).forUpdate().fetchOptional();
    if (lastError.isEmpty()) {
      return 0;
    }
    String error = lastError.get().value1() == null ? reason : lastError.get().value1();
    return DeadMoves.move(dsl, parkedHead, reason, error, failedAt);
  }

  /**
   * Moves the dead rows {@code ids} that still match {@code filter} back to the outbox, in one
   * statement, skipping rows another transaction holds (a concurrent replay or purge moves or
   * deletes those):
   *
   * <pre>{@code
   * with moved as (
   *   delete from dead where id in (
   *     select id from dead locked where id = any(:ids) and <filter> order by id
   *     for update skip locked)
   *   returning ...),
   * placed as (
   *   insert into outbox (message_id, ..., created_at, ordering_key, lane, deliver_at, tenant_id,
   *                       attempts, status)
   *   select message_id, ..., created_at, ordering_key, <lane>, :replayedAt, tenant_id, 0, 'pending'
   *   from moved order by id
   *   returning id, message_id, ordering_key, lane)
   * select was.id, now.id, ... from (moved numbered by id) was join (placed numbered by id) now
   * }</pre>
   *
   * The insert draws identity values in the order of its {@code select} (as the enqueue's does in
   * {@code VALUES} order), so the new ids follow the dead ids, and the n-th moved row is the n-th
   * placed one. {@code lanes} gives the lane of a key whose stored lane is not its lane under the
   * store's lane count (written under another count); other rows keep theirs.
   */
  static List<ReplayedRow> replay(
      DSLContext dsl,
      List<Long> ids,
      DeadFilter filter,
      Instant replayedAt,
      Map<String, Integer> lanes) {
    if (ids.isEmpty()) {
      return List.of();
    }
    RelayerOutboxDead locked = D.as("locked");
    CommonTableExpression<?> moved =
        name("moved")
            .as(
                dsl.deleteFrom(D)
                    .where(
                        D.ID.in(
                            select(locked.ID)
                                .from(locked)
                                .where(locked.ID.eq(any(ids.toArray(Long[]::new))))
                                .and(DeadRowQueries.matching(locked, filter))
                                .orderBy(locked.ID)
                                .forUpdate()
                                .skipLocked()))
                    .returning(
                        D.ID,
                        D.MESSAGE_ID,
                        D.TRANSPORT,
                        D.DESTINATION,
                        D.MESSAGE_TYPE,
                        D.HEADERS,
                        D.BODY,
                        D.CREATED_AT,
                        D.ORDERING_KEY,
                        D.LANE,
                        D.TENANT_ID));
    Table<? extends Record> m = moved;
    Field<Integer> lane = m.field(D.LANE);
    if (!lanes.isEmpty()) {
      CaseWhenStep<String, Integer> byKey = null;
      for (Map.Entry<String, Integer> entry : new TreeMap<>(lanes).entrySet()) {
        byKey =
            byKey == null
                ? DSL.case_(m.field(D.ORDERING_KEY)).when(entry.getKey(), entry.getValue())
                : byKey.when(entry.getKey(), entry.getValue());
      }
      lane = Objects.requireNonNull(byKey).otherwise(lane);
    }
    CommonTableExpression<?> placed =
        name("placed")
            .as(
                dsl.insertInto(
                        O,
                        O.MESSAGE_ID,
                        O.TRANSPORT,
                        O.DESTINATION,
                        O.MESSAGE_TYPE,
                        O.HEADERS,
                        O.BODY,
                        O.CREATED_AT,
                        O.ORDERING_KEY,
                        O.LANE,
                        O.DELIVER_AT,
                        O.TENANT_ID,
                        O.ATTEMPTS,
                        O.STATUS)
                    .select(
                        select(
                                m.field(D.MESSAGE_ID),
                                m.field(D.TRANSPORT),
                                m.field(D.DESTINATION),
                                m.field(D.MESSAGE_TYPE),
                                m.field(D.HEADERS),
                                m.field(D.BODY),
                                m.field(D.CREATED_AT),
                                m.field(D.ORDERING_KEY),
                                lane,
                                val(OutboxSql.utc(replayedAt), O.DELIVER_AT.getDataType()),
                                m.field(D.TENANT_ID),
                                inline(0),
                                inline(OutboxSql.PENDING))
                            .from(m)
                            .orderBy(m.field(D.ID)))
                    .returning(O.ID, O.MESSAGE_ID, O.ORDERING_KEY, O.LANE));
    Table<? extends Record> p = placed;
    Table<?> was =
        select(m.field(D.ID).as("dead_id"), rowNumber().over(orderBy(m.field(D.ID))).as("n"))
            .from(m)
            .asTable("was");
    Table<?> now =
        select(
                p.field(O.ID).as("outbox_id"),
                p.field(O.MESSAGE_ID).as("message_id"),
                p.field(O.ORDERING_KEY).as("ordering_key"),
                p.field(O.LANE).as("lane"),
                rowNumber().over(orderBy(p.field(O.ID))).as("n"))
            .from(p)
            .asTable("now");
    Field<Long> deadId = was.field("dead_id", Long.class);
    return dsl.with(moved, placed)
        .select(
            deadId,
            now.field("outbox_id", Long.class),
            now.field("message_id", UUID.class),
            now.field("ordering_key", String.class),
            now.field("lane", Integer.class))
        .from(was)
        .join(now)
        .on(was.field("n", Integer.class).eq(now.field("n", Integer.class)))
        .orderBy(deadId)
        .fetch(r -> new ReplayedRow(r.value1(), r.value2(), r.value3(), r.value4(), r.value5()));
  }

  /**
   * Deletes the dead rows {@code ids} that still match {@code filter}, skipping rows another
   * transaction holds; returns how many.
   */
  static int delete(DSLContext dsl, List<Long> ids, DeadFilter filter) {
    if (ids.isEmpty()) {
      return 0;
    }
    RelayerOutboxDead locked = D.as("locked");
    return dsl.deleteFrom(D)
        .where(
            D.ID.in(
                select(locked.ID)
                    .from(locked)
                    .where(locked.ID.eq(any(ids.toArray(Long[]::new))))
                    .and(DeadRowQueries.matching(locked, filter))
                    .orderBy(locked.ID)
                    .forUpdate()
                    .skipLocked()))
        .execute();
  }
}
