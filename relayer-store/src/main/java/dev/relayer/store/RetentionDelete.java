package dev.relayer.store;

import static dev.relayer.store.OutboxQueries.utc;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.array;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.max;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectCount;

import java.time.OffsetDateTime;
import java.util.Optional;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record1;
import org.jooq.Record3;
import org.jooq.Record4;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The one shape of a retention delete, for the dead table ({@code failed_at}) and the inbox ({@code
 * processed_at}), as two statements in the caller's transaction:
 *
 * <pre>{@code
 * select b.first, b.newest, b.selected,
 *        (select count(*) from t where ts >= b.first and ts <= b.newest and ts < :olderThan)
 * from (select min(ts) first, max(ts) newest, count(*) selected
 *       from (select ts from t where ts < :olderThan [and ts >= :from]
 *             order by ts limit :limit) s) b
 *
 * delete from t where ts >= :first and ts <= :newest and ts < :olderThan
 * }</pre>
 *
 * The first reads the batch's bounds from the timestamp index alone (an index-only scan where the
 * table's pages are all-visible, as old rows' pages are once vacuumed); the second deletes that
 * range through the same index. Neither carries row addresses or a {@code RETURNING}: the
 * statement's row count is the number deleted. (A delete by {@code ctid = ANY(array(select ctid …
 * order by ts limit n))} with a {@code RETURNING} into an aggregate fetched every row from the heap
 * twice more and took markedly longer per batch; see {@code docs/benchmarks.md}.)
 *
 * <p>When more rows share the batch's newest timestamp than fit in the limit (rows written by one
 * transaction share its timestamp), the range stops short of that timestamp and at most the
 * remainder of the limit of its rows go by physical address ({@code ctid}, read and compared within
 * one statement, never kept), so that a batch never deletes more than its limit. Rows committed
 * between the two statements with a timestamp inside the range (written with a timestamp older than
 * the retention) are deleted too.
 */
final class RetentionDelete {

  private static final Field<Object> CTID = field(name("ctid"), SQLDataType.OTHER);

  private RetentionDelete() {}

  static Purged run(
      DSLContext dsl, Table<?> table, Field<OffsetDateTime> timestamp, PurgeBatch batch) {
    Condition due = timestamp.lt(utc(batch.olderThan()));
    Condition window = batch.from().map(f -> due.and(timestamp.ge(utc(f)))).orElse(due);
    Table<Record1<OffsetDateTime>> oldest =
        select(timestamp)
            .from(table)
            .where(window)
            .orderBy(timestamp)
            .limit(batch.limit())
            .asTable("oldest");
    Field<OffsetDateTime> ts = oldest.field(timestamp);
    Table<Record3<OffsetDateTime, OffsetDateTime, Integer>> bounds =
        select(min(ts).as("first"), max(ts).as("newest"), count().as("selected"))
            .from(oldest)
            .asTable("bounds");
    Field<OffsetDateTime> first = bounds.field("first", OffsetDateTime.class);
    Field<OffsetDateTime> newest = bounds.field("newest", OffsetDateTime.class);
    Field<Integer> selected = bounds.field("selected", Integer.class);
    Field<Integer> inRange =
        field(
            selectCount()
                .from(table)
                .where(timestamp.ge(first))
                .and(timestamp.le(newest))
                .and(due));
    Record4<OffsetDateTime, OffsetDateTime, Integer, Integer> found =
        dsl.select(first, newest, selected, inRange).from(bounds).fetchOne();
    if (found == null || found.value3() == 0) {
      return new Purged(0, Optional.empty());
    }
    OffsetDateTime from = found.value1();
    OffsetDateTime to = found.value2();
    int limit = batch.limit();
    if (found.value4() <= limit) {
      int deleted =
          dsl.deleteFrom(table).where(timestamp.ge(from)).and(timestamp.le(to)).and(due).execute();
      return new Purged(deleted, Optional.of(to.toInstant()));
    }
    // More rows share the newest timestamp than fit: everything older, then the rest of the limit
    // of the ties. The next batch starts at that timestamp again.
    int older =
        dsl.deleteFrom(table).where(timestamp.ge(from)).and(timestamp.lt(to)).and(due).execute();
    int ties = 0;
    if (older < limit) {
      Field<Object[]> doomed =
          array(select(CTID).from(table).where(timestamp.eq(to)).and(due).limit(limit - older));
      ties = dsl.deleteFrom(table).where(CTID.eq(any(doomed))).and(timestamp.eq(to)).execute();
    }
    return new Purged(older + ties, Optional.of(to.toInstant()));
  }
}
