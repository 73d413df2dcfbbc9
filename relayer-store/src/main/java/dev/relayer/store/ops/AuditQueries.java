package dev.relayer.store.ops;

import static dev.relayer.jooq.generated.Tables.RELAYER_OPERATIONS;
import static dev.relayer.store.internal.OutboxSql.utc;

import dev.relayer.jooq.generated.tables.RelayerOperations;
import java.time.Instant;
import java.util.List;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * Every statement on the audit trail, {@code <prefix>operations}. Built per call: they run at an
 * operator's pace.
 */
final class AuditQueries {

  private static final RelayerOperations O = RELAYER_OPERATIONS;

  private AuditQueries() {}

  /** Inserts {@code entry}; returns its id. {@code at} is the transaction's time. */
  static long insert(DSLContext dsl, NewAuditEntry entry) {
    Long id =
        dsl.insertInto(O, O.OPERATOR, O.OPERATION, O.FILTER, O.ROWS)
            .values(
                entry.operator(),
                entry.operation().text(),
                JSONB.valueOf(entry.filter()),
                entry.rows())
            .returning(O.ID)
            .fetchOne(O.ID);
    if (id == null) {
      throw new IllegalStateException("insert into the audit trail returned no id");
    }
    return id;
  }

  /** Adds {@code rows} to the count of audit row {@code id}; returns how many rows it updated. */
  static int addRows(DSLContext dsl, long id, long rows) {
    return dsl.update(O).set(O.ROWS, O.ROWS.plus(rows)).where(O.ID.eq(id)).execute();
  }

  /** The newest {@code limit} rows, at or after {@code since} when given, newest first. */
  static List<AuditEntry> newest(DSLContext dsl, @Nullable Instant since, int limit) {
    Condition where = since == null ? DSL.noCondition() : O.AT.ge(utc(since));
    return dsl.select(O.ID, O.AT, O.OPERATOR, O.OPERATION, O.FILTER, O.ROWS)
        .from(O)
        .where(where)
        .orderBy(O.ID.desc())
        .limit(limit)
        .fetch(
            r ->
                new AuditEntry(
                    r.value1(),
                    r.value2().toInstant(),
                    r.value3(),
                    r.value4(),
                    r.value5().data(),
                    r.value6()));
  }
}
