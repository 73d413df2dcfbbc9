package dev.relayer.store;

import static dev.relayer.store.OutboxQueries.utc;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.array;
import static org.jooq.impl.DSL.deleteFrom;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.select;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The one shape of a retention delete, for the dead table ({@code failed_at}) and the inbox ({@code
 * processed_at}): a window of timestamps, at most {@code limit} of its rows deleted by physical
 * address in one statement on the caller's connection.
 *
 * <pre>{@code
 * delete from t
 * where ctid = any(array(select ctid from t where ts >= :from and ts < :below
 *                        order by ts limit :limit))
 *   and ts >= :from and ts < :below
 *   and (select set_config('synchronous_commit', 'off', true)) is not null
 * }</pre>
 *
 * The inner select walks the timestamp index from the window's start and collects the addresses of
 * at most {@code limit} rows; the delete fetches exactly those tuples (a TID scan) and checks the
 * window again on each, so a row that another transaction changed in between is deleted only if it
 * still lies in the window. Its commit does not wait for the WAL flush (a lost batch is deleted
 * again by the next). This is the shape of the loop a database administrator writes ({@code delete
 * … where ctid = any(array(select ctid … limit n))}), with a keyset: the window is what lets a
 * drain start each batch at the rows still there instead of at the oldest index entry, walking
 * every entry its predecessors left behind (which stay in the index until vacuum). The address is
 * read and used within one statement, never kept.
 *
 * <p>The window moves by the count alone, without reading back what was deleted: a window that came
 * back short is done, and the next starts where it ended, its width scaled so that it is expected
 * to hold nine tenths of the limit (at most four times wider: a gap in the timestamps widens the
 * window quickly but not at once to the cutoff). A full window may hold more: the next batch starts
 * at the same place with half the width. Rows sharing one timestamp beyond the limit (rows written
 * by one transaction share it) are so taken {@code limit} at a time from a window one microsecond
 * wide. The first batch of a drain reads the oldest timestamp before the cutoff (one index probe)
 * and takes the whole range up to the cutoff as its window. A window that reaches the cutoff and
 * comes back short ends the drain. (Two statements per batch — read the timestamp of the first row
 * past the limit, then delete every row before it — did the same work with a second scan of the
 * index and a second round trip, at about two thirds of this shape's rate; see {@code
 * docs/benchmarks.md}.) The statements are rendered once per store and table ({@link StoreJdbc}).
 */
final class RetentionDelete {

  /** The most a window widens after one that came back short. */
  private static final double MAX_GROWTH = 4;

  /** The share of the limit a window is sized to hold. */
  private static final double FILL = 0.9;

  /** The narrowest window: the resolution of a PostgreSQL timestamp. */
  private static final Duration MIN_SPAN = Duration.of(1, ChronoUnit.MICROS);

  /** The widest window a drain asks for. */
  private static final Duration MAX_SPAN = Duration.ofDays(365L * 1000);

  private static final Field<Object> CTID = field(name("ctid"), SQLDataType.OTHER);
  private static final Param<OffsetDateTime> OLDER_THAN =
      param("olderThan", SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Param<OffsetDateTime> FROM =
      param("from", SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Param<OffsetDateTime> BELOW =
      param("below", SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Param<Integer> LIMIT = param("limit", SQLDataType.INTEGER);

  private final StoreJdbc jdbc;
  private final RenderedStatement oldest;
  private final RenderedStatement deleteWindow;

  RetentionDelete(StoreJdbc jdbc, Table<?> table, Field<OffsetDateTime> timestamp) {
    this.jdbc = jdbc;
    this.oldest =
        jdbc.render(
            select(timestamp)
                .from(table)
                .where(timestamp.lt(OLDER_THAN))
                .orderBy(timestamp)
                .limit(inline(1)));
    Condition window = timestamp.ge(FROM).and(timestamp.lt(BELOW));
    Field<Object[]> doomed =
        array(select(CTID).from(table).where(window).orderBy(timestamp).limit(LIMIT));
    Condition noFlushWait = field(select(TransactionSettings.NO_FLUSH_WAIT)).isNotNull();
    this.deleteWindow =
        jdbc.render(deleteFrom(table).where(CTID.eq(any(doomed))).and(window).and(noFlushWait));
  }

  Purged run(DSLContext dsl, PurgeBatch batch) {
    Instant cutoff = batch.olderThan();
    Optional<Instant> from =
        batch.from().isPresent()
            ? batch.from()
            : jdbc.first(
                    dsl,
                    oldest,
                    Map.of(OLDER_THAN.getParamName(), utc(cutoff)),
                    row -> row.getObject(1, OffsetDateTime.class))
                .map(OffsetDateTime::toInstant);
    if (from.isEmpty()) {
      return new Purged(0, Optional.empty(), Optional.empty());
    }
    Instant start = from.get();
    Instant below = batch.span().map(s -> end(start, s, cutoff)).orElse(cutoff);
    int deleted =
        jdbc.update(
            dsl,
            deleteWindow,
            Map.of(
                FROM.getParamName(), utc(start),
                BELOW.getParamName(), utc(below),
                LIMIT.getParamName(), batch.limit()));
    Duration width = Duration.between(start, below);
    if (deleted >= batch.limit()) {
      return new Purged(deleted, Optional.of(start), Optional.of(clamp(width.dividedBy(2))));
    }
    if (!below.isBefore(cutoff)) {
      return new Purged(deleted, Optional.empty(), Optional.empty());
    }
    if (batch.afterFull()) {
      // This window is the first half of a full one, whose oldest rows that batch deleted: its
      // count says nothing of the rows' density, and the other half comes next.
      return new Purged(deleted, Optional.of(below), Optional.of(width));
    }
    if (deleted == 0) {
      // A gap: the rest up to the cutoff, which the limit bounds and halving narrows if needed.
      return new Purged(0, Optional.of(below), Optional.empty());
    }
    double growth = Math.min(MAX_GROWTH, FILL * batch.limit() / deleted);
    return new Purged(deleted, Optional.of(below), Optional.of(scaled(width, growth)));
  }

  /** Where a window from {@code start} {@code span} wide ends: on a microsecond, by the cutoff. */
  private static Instant end(Instant start, Duration span, Instant cutoff) {
    Instant end = start.plus(span).truncatedTo(ChronoUnit.MICROS);
    if (!end.isAfter(start)) {
      end = start.plus(MIN_SPAN);
    }
    return end.isBefore(cutoff) ? end : cutoff;
  }

  private static Duration scaled(Duration width, double factor) {
    double nanos = (width.getSeconds() * 1e9 + width.getNano()) * factor;
    if (nanos >= MAX_SPAN.getSeconds() * 1e9) {
      return MAX_SPAN;
    }
    long whole = (long) nanos;
    return clamp(Duration.ofSeconds(whole / 1_000_000_000L, whole % 1_000_000_000L));
  }

  private static Duration clamp(Duration span) {
    if (span.compareTo(MIN_SPAN) < 0) {
      return MIN_SPAN;
    }
    return span.compareTo(MAX_SPAN) > 0 ? MAX_SPAN : span;
  }
}
