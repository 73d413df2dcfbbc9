package dev.relayer.store;

import static dev.relayer.store.OutboxQueries.utc;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.array;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.deleteFrom;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.max;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectCount;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Record1;
import org.jooq.Record3;
import org.jooq.Select;
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
 * twice more and took markedly longer per batch; see {@code docs/benchmarks.md}.) The statements
 * are rendered once per store and table ({@link StoreJdbc}): built and rendered by jOOQ on every
 * batch, the pair took about half as long again as the same two statements over plain JDBC.
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
  private static final Param<OffsetDateTime> OLDER_THAN =
      param("olderThan", SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Param<OffsetDateTime> FROM =
      param("from", SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Param<Integer> LIMIT = param("limit", SQLDataType.INTEGER);
  private static final Param<OffsetDateTime> FIRST =
      param("first", SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Param<OffsetDateTime> NEWEST =
      param("newest", SQLDataType.TIMESTAMPWITHTIMEZONE);

  private final StoreJdbc jdbc;
  private final RenderedStatement boundsOfFirst;
  private final RenderedStatement boundsFrom;
  private final RenderedStatement deleteRange;
  private final RenderedStatement deleteOlder;
  private final RenderedStatement deleteTies;

  RetentionDelete(StoreJdbc jdbc, Table<?> table, Field<OffsetDateTime> timestamp) {
    this.jdbc = jdbc;
    Condition due = timestamp.lt(OLDER_THAN);
    this.boundsOfFirst = jdbc.render(bounds(table, timestamp, due));
    this.boundsFrom = jdbc.render(bounds(table, timestamp, due.and(timestamp.ge(FROM))));
    this.deleteRange =
        jdbc.render(
            deleteFrom(table).where(timestamp.ge(FIRST)).and(timestamp.le(NEWEST)).and(due));
    this.deleteOlder =
        jdbc.render(
            deleteFrom(table).where(timestamp.ge(FIRST)).and(timestamp.lt(NEWEST)).and(due));
    Field<Object[]> doomed =
        array(select(CTID).from(table).where(timestamp.eq(NEWEST)).and(due).limit(LIMIT));
    this.deleteTies =
        jdbc.render(deleteFrom(table).where(CTID.eq(any(doomed))).and(timestamp.eq(NEWEST)));
  }

  /** The first and newest timestamp of the batch, its size, and how many rows lie between. */
  private static Select<?> bounds(
      Table<?> table, Field<OffsetDateTime> timestamp, Condition window) {
    Table<Record1<OffsetDateTime>> oldest =
        select(timestamp)
            .from(table)
            .where(window)
            .orderBy(timestamp)
            .limit(LIMIT)
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
                .and(timestamp.lt(OLDER_THAN)));
    return select(first, newest, selected, inRange).from(bounds);
  }

  private record Bounds(OffsetDateTime first, OffsetDateTime newest, int inRange) {}

  Purged run(DSLContext dsl, PurgeBatch batch) {
    Map<String, Object> values = new HashMap<>();
    values.put(OLDER_THAN.getParamName(), utc(batch.olderThan()));
    values.put(LIMIT.getParamName(), batch.limit());
    batch.from().ifPresent(f -> values.put(FROM.getParamName(), utc(f)));
    Optional<Bounds> found =
        jdbc.first(
            dsl,
            batch.from().isPresent() ? boundsFrom : boundsOfFirst,
            values,
            row ->
                row.getInt(3) == 0
                    ? null
                    : new Bounds(
                        row.getObject(1, OffsetDateTime.class),
                        row.getObject(2, OffsetDateTime.class),
                        row.getInt(4)));
    if (found.isEmpty()) {
      return new Purged(0, Optional.empty());
    }
    Bounds bounds = found.get();
    values.put(FIRST.getParamName(), bounds.first());
    values.put(NEWEST.getParamName(), bounds.newest());
    int limit = batch.limit();
    Optional<Instant> newest = Optional.of(bounds.newest().toInstant());
    if (bounds.inRange() <= limit) {
      return new Purged(jdbc.update(dsl, deleteRange, values), newest);
    }
    // More rows share the newest timestamp than fit: everything older, then the rest of the limit
    // of the ties. The next batch starts at that timestamp again.
    int older = jdbc.update(dsl, deleteOlder, values);
    int ties = 0;
    if (older < limit) {
      values.put(LIMIT.getParamName(), limit - older);
      ties = jdbc.update(dsl, deleteTies, values);
    }
    return new Purged(older + ties, newest);
  }
}
