package dev.relayer.store.pass;

import static dev.relayer.store.internal.OutboxSql.utc;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.array;
import static org.jooq.impl.DSL.deleteFrom;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.select;

import dev.relayer.store.internal.Binds;
import dev.relayer.store.internal.OutboxSql;
import dev.relayer.store.internal.RenderedStatement;
import dev.relayer.store.internal.StoreJdbc;
import dev.relayer.store.internal.TransactionSettings;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.Optional;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Record1;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The one shape of a retention delete, for the dead table ({@code failed_at}), the inbox ({@code
 * processed_at}) and the idempotency keys ({@code created_at}), as two statements on the caller's
 * connection:
 *
 * <pre>{@code
 * select ts from t where ts < :olderThan [and ts >= :from]
 * order by ts offset :limit limit 1                                   -- the edge
 *
 * delete from t where ts < coalesce(:edge, :olderThan) [and ts >= :from]
 *   and (select set_config('synchronous_commit', 'off', true)) is not null
 * }</pre>
 *
 * The first reads the batch's edge — the timestamp of the first row past the limit — from the
 * timestamp index alone (an index-only scan where the table's pages are all-visible, as old rows'
 * pages are once vacuumed); the second deletes every row before the edge through the same index,
 * which are at most {@code limit}, and makes its transaction's commit not wait for the WAL flush (a
 * lost batch is deleted again by the next). The next batch starts at the edge; no edge means the
 * batch deleted everything left before the cutoff: the drain is done.
 *
 * <p>On an auto-commit connection the two are two short transactions, the delete committing as it
 * ends, as the loop a database administrator writes ({@code delete … where ctid = any(array(select
 * ctid … limit n))}) is one: cleanup runs its batches so between the moments it takes its lease.
 * Nothing needs the two to be atomic: a row deleted by someone else in between is simply not
 * deleted again, and rows committed between them with a timestamp inside the range (written with a
 * timestamp older than the retention) are deleted too. Neither statement carries row addresses or a
 * {@code RETURNING}: the delete's row count is the number deleted. (A delete by {@code ctid =
 * ANY(array(select ctid … order by ts limit n))} with a {@code RETURNING} into an aggregate fetched
 * every row from the heap twice more, a first statement that also counted the rows of the range
 * took an index scan more per batch, and one statement holding both as data-modifying CTEs took
 * longer than the two.) The statements are rendered once per store and table ({@link StoreJdbc}).
 *
 * <p>When more than {@code limit} rows share the oldest timestamp left (rows written by one
 * transaction share its timestamp), the edge is that timestamp, nothing lies before it, and {@code
 * limit} of those rows go by physical address ({@code ctid}, read and compared within one
 * statement, never kept); the next batch starts at the same timestamp.
 */
public final class RetentionDelete {

  private static final Field<Object> CTID = field(name("ctid"), SQLDataType.OTHER);
  private static final Param<OffsetDateTime> OLDER_THAN =
      param("olderThan", SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Param<OffsetDateTime> FROM =
      param("from", SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Param<Integer> LIMIT = param("limit", SQLDataType.INTEGER);
  private static final Param<OffsetDateTime> BELOW =
      param("below", SQLDataType.TIMESTAMPWITHTIMEZONE);

  private final StoreJdbc jdbc;
  private final RenderedStatement edgeOfFirst;
  private final RenderedStatement edgeFrom;
  private final RenderedStatement deleteFirst;
  private final RenderedStatement deleteFrom;
  private final RenderedStatement deleteTies;

  RetentionDelete(StoreJdbc jdbc, Table<?> table, Field<OffsetDateTime> timestamp) {
    this.jdbc = jdbc;
    Condition due = timestamp.lt(OLDER_THAN);
    Condition fromOn = timestamp.ge(FROM);
    Condition noFlushWait = field(select(TransactionSettings.NO_FLUSH_WAIT)).isNotNull();
    this.edgeOfFirst = jdbc.render(edge(table, timestamp, due));
    this.edgeFrom = jdbc.render(edge(table, timestamp, due.and(fromOn)));
    this.deleteFirst = jdbc.render(deleteFrom(table).where(timestamp.lt(BELOW)).and(noFlushWait));
    this.deleteFrom =
        jdbc.render(deleteFrom(table).where(timestamp.lt(BELOW)).and(fromOn).and(noFlushWait));
    Field<Object[]> doomed =
        array(select(CTID).from(table).where(timestamp.eq(FROM)).and(due).limit(LIMIT));
    this.deleteTies =
        jdbc.render(
            deleteFrom(table).where(CTID.eq(any(doomed))).and(timestamp.eq(FROM)).and(noFlushWait));
  }

  /** The timestamp of the first row past the limit. */
  private static Select<Record1<OffsetDateTime>> edge(
      Table<?> table, Field<OffsetDateTime> timestamp, Condition window) {
    return select(timestamp)
        .from(table)
        .where(window)
        .orderBy(timestamp)
        .limit(inline(1))
        .offset(LIMIT);
  }

  public Purged run(DSLContext dsl, PurgeBatch batch) {
    Objects.requireNonNull(batch, "batch");
    Binds binds = new Binds().set(OLDER_THAN, utc(batch.olderThan())).set(LIMIT, batch.limit());
    Optional<OffsetDateTime> from = batch.from().map(OutboxSql::utc);
    from.ifPresent(f -> binds.set(FROM, f));
    Optional<OffsetDateTime> edge =
        jdbc.first(
            dsl,
            from.isPresent() ? edgeFrom : edgeOfFirst,
            binds,
            row -> row.getObject(1, OffsetDateTime.class));
    Optional<Instant> next = edge.map(OffsetDateTime::toInstant);
    if (edge.isEmpty() || from.isEmpty() || edge.get().isAfter(from.get())) {
      binds.set(BELOW, edge.orElseGet(() -> utc(batch.olderThan())));
      int deleted = jdbc.update(dsl, from.isPresent() ? deleteFrom : deleteFirst, binds);
      if (deleted > 0 || edge.isEmpty()) {
        return new Purged(deleted, next);
      }
    }
    // More than the limit share the edge's timestamp, and nothing lies before it: the limit of
    // those, by address. The next batch starts at the same timestamp.
    binds.set(FROM, edge.get());
    return new Purged(jdbc.update(dsl, deleteTies, binds), next);
  }
}
