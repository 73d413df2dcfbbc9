package dev.relayer.store;

import static dev.relayer.store.OutboxQueries.utc;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.array;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.max;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.select;

import java.time.OffsetDateTime;
import java.util.Optional;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The one shape of a retention delete, for the dead table ({@code failed_at}) and the inbox ({@code
 * processed_at}):
 *
 * <pre>{@code
 * with gone as (
 *   delete from t
 *   where ctid = any(array(select ctid from t where ts < :olderThan [and ts >= :from]
 *                          order by ts limit :limit))
 *     and ts < :olderThan
 *   returning ts)
 * select count(*), max(ts) from gone
 * }</pre>
 *
 * The inner select walks the timestamp index from the keyset on; the delete finds its rows by
 * physical address (a TID scan, no second index lookup per row) and tests the cutoff again, so a
 * row changed in between is left alone. {@code ctid} is PostgreSQL's system column and not part of
 * the generated tables; it is only read and compared within the one statement, never kept.
 */
final class RetentionDelete {

  private static final Field<Object> CTID = field(name("ctid"), SQLDataType.OTHER);

  private RetentionDelete() {}

  static Purged run(
      DSLContext dsl, Table<?> table, Field<OffsetDateTime> timestamp, PurgeBatch batch) {
    OffsetDateTime olderThan = utc(batch.olderThan());
    Condition due = timestamp.lt(olderThan);
    Condition window = batch.from().map(f -> due.and(timestamp.ge(utc(f)))).orElse(due);
    Field<Object[]> doomed =
        array(select(CTID).from(table).where(window).orderBy(timestamp).limit(batch.limit()));
    CommonTableExpression<Record1<OffsetDateTime>> gone =
        name("gone")
            .as(
                dsl.deleteFrom(table)
                    .where(CTID.eq(any(doomed)))
                    .and(due)
                    .returningResult(timestamp));
    Table<Record1<OffsetDateTime>> g = gone;
    Record2<Integer, OffsetDateTime> row =
        dsl.with(gone).select(count(), max(g.field(timestamp))).from(g).fetchOne();
    return new Purged(row.value1(), Optional.ofNullable(row.value2()).map(t -> t.toInstant()));
  }
}
