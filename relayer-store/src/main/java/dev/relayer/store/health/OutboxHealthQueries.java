package dev.relayer.store.health;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.store.internal.OutboxSql.PARKED;
import static dev.relayer.store.internal.OutboxSql.PENDING;
import static dev.relayer.store.internal.OutboxSql.age;
import static dev.relayer.store.internal.OutboxSql.eligible;
import static dev.relayer.store.internal.OutboxSql.utc;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.min;

import dev.relayer.jooq.generated.tables.RelayerOutbox;
import dev.relayer.store.internal.OutboxSql;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record2;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/** The health checks' reads of the outbox, built per call: none runs per message or per pass. */
final class OutboxHealthQueries {
  private static final RelayerOutbox O = RELAYER_OUTBOX;

  private OutboxHealthQueries() {}

  static long parkedKeyCount(DSLContext dsl) {
    return dsl.fetchCount(O, O.STATUS.eq(PARKED));
  }

  static Backlog backlog(DSLContext dsl, Instant now, @Nullable String transport) {
    OffsetDateTime at = OffsetDateTime.ofInstant(now, ZoneOffset.UTC);
    Condition where = eligible(at);
    if (transport != null) {
      where = where.and(O.TRANSPORT.eq(transport));
    }
    Record2<Integer, OffsetDateTime> row =
        dsl.select(count(), min(DSL.coalesce(O.DELIVER_AT, O.CREATED_AT)))
            .from(O)
            .where(where)
            .fetchOne();
    long eligible = row.value1();
    Optional<Duration> age =
        row.value2() == null
            ? Optional.empty()
            : Optional.of(maxZero(Duration.between(row.value2().toInstant(), now)));
    return new Backlog(eligible, age);
  }

  private static Duration maxZero(Duration duration) {
    return duration.isNegative() ? Duration.ZERO : duration;
  }

  /**
   * {@code current_schema()}, a function PostgreSQL marks parallel unsafe: selected beside a
   * statement's own columns, it keeps the statement's plan serial, with no parallel workers. For
   * the health read, which reads up to its row limit on a schedule: serial, it takes the server's
   * parallel workers from no application query, and it costs less CPU in all, since each worker
   * compiles the statement's expressions again (JIT) and aggregates its part apart (measured in
   * {@code docs/benchmarks.md}, <i>The health read on a draining outbox</i>). A planner setting
   * would need a transaction of the read's own, which a caller's context does not always allow.
   */
  private static final Field<String> SERIAL_PLAN = DSL.function("current_schema", String.class);

  /** The alias of the health read's window, typed as the outbox so its conditions read alike. */
  private static final RelayerOutbox W = O.as("due_rows");

  /**
   * The health read, one statement: the pending figures over a window of the due pending rows,
   * oldest (lowest id) first and at most {@code query.rowLimit()} of them, read through the primary
   * key; the parked heads through their partial index; the dead table's counts. Its plan serial
   * ({@link #SERIAL_PLAN}).
   */
  static OutboxHealth health(DSLContext dsl, HealthQuery query) {
    OffsetDateTime at = OffsetDateTime.ofInstant(query.now(), ZoneOffset.UTC);
    Condition duePending = O.STATUS.eq(PENDING).and(O.DELIVER_AT.isNull().or(O.DELIVER_AT.le(at)));
    var window =
        dsl.select(
                O.ID,
                O.STATUS,
                O.CREATED_AT,
                O.DELIVER_AT,
                O.CLAIM_TOKEN,
                O.CLAIM_EXPIRES_AT,
                O.LAST_ERROR,
                O.LANE,
                O.ATTEMPTS)
            .from(O)
            .where(duePending)
            .orderBy(O.ID)
            .limit(DSL.inline(query.rowLimit()))
            .asTable(W.getName());
    Field<OffsetDateTime> dueSince = DSL.coalesce(W.DELIVER_AT, W.CREATED_AT);
    Condition eligible = OutboxSql.eligible(W, DSL.val(at));
    Condition retrying = W.LAST_ERROR.isNotNull().and(W.CLAIM_EXPIRES_AT.gt(at));
    Condition failing = W.LAST_ERROR.isNotNull();
    Condition neverHandedOff =
        W.LANE
            .isNull()
            .and(W.ATTEMPTS.eq(0))
            .and(W.CLAIM_TOKEN.isNull())
            .and(W.CREATED_AT.le(utc(query.now().minus(query.recoveryDelay()))))
            .and(W.DELIVER_AT.isNull().or(W.DELIVER_AT.le(W.CREATED_AT)));
    Condition parked = O.STATUS.eq(PARKED);
    var row =
        dsl.select(
                count().filterWhere(eligible),
                min(dueSince).filterWhere(eligible),
                min(dueSince),
                count().filterWhere(retrying),
                min(dueSince).filterWhere(retrying),
                count().filterWhere(neverHandedOff),
                count(),
                count().filterWhere(failing),
                min(dueSince).filterWhere(failing),
                DSL.field(DSL.select(count()).from(O).where(parked)),
                DSL.field(DSL.select(min(O.PARKED_AT)).from(O).where(parked)),
                DeadCounts.countField(),
                DeadCounts.countSinceField(query.now().minus(query.deadWindow())),
                SERIAL_PLAN)
            .from(window)
            .fetchOne();
    return new OutboxHealth(
        new Backlog(row.value1(), age(row.value2(), query.now())),
        age(row.value3(), query.now()),
        row.value4(),
        age(row.value5(), query.now()),
        row.value8(),
        age(row.value9(), query.now()),
        row.value6(),
        row.value7() >= query.rowLimit(),
        row.value10(),
        age(row.value11(), query.now()),
        row.value12(),
        row.value13());
  }
}
