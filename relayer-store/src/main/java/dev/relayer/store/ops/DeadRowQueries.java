package dev.relayer.store.ops;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX_DEAD;
import static dev.relayer.store.internal.OutboxSql.utc;
import static org.jooq.impl.DSL.arrayAggDistinct;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.max;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.noCondition;

import dev.relayer.jooq.generated.tables.RelayerOutboxDead;
import dev.relayer.jooq.generated.tables.records.RelayerOutboxDeadRecord;
import dev.relayer.store.internal.HeadersJson;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record3;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The operator's reads of the dead table — listing, groups, one row, counts — and the filter and
 * page conditions its actions share ({@link OutboxDeadQueries}). Built per call: filters vary, and
 * these run at an operator's pace, not per message.
 */
final class DeadRowQueries {

  private static final RelayerOutboxDead D = RELAYER_OUTBOX_DEAD;

  private DeadRowQueries() {}

  /** The rows of {@code table} (the dead table or an alias of it) that {@code filter} matches. */
  static Condition matching(RelayerOutboxDead table, DeadFilter filter) {
    Condition where = noCondition();
    where = and(where, table.ERROR_FINGERPRINT, filter.fingerprint());
    where = and(where, table.TRANSPORT, filter.transport());
    where = and(where, table.DESTINATION, filter.destination());
    where = and(where, table.MESSAGE_TYPE, filter.messageType());
    where = and(where, table.TENANT_ID, filter.tenantId());
    where = and(where, table.ORDERING_KEY, filter.orderingKey());
    where = and(where, table.REASON, filter.reason());
    if (filter.failedFrom() != null) {
      where = where.and(table.FAILED_AT.ge(utc(filter.failedFrom())));
    }
    if (filter.failedBefore() != null) {
      where = where.and(table.FAILED_AT.lt(utc(filter.failedBefore())));
    }
    if (!filter.ids().isEmpty()) {
      where = where.and(table.ID.in(filter.ids()));
    }
    return where;
  }

  private static Condition and(Condition where, Field<String> column, @Nullable String value) {
    return value == null ? where : where.and(column.eq(value));
  }

  /** The rows of {@code page}: its filter and its id range. */
  static Condition inPage(DeadPage page) {
    Condition where = matching(D, page.filter()).and(D.ID.gt(page.afterId()));
    return page.upToId() == Long.MAX_VALUE ? where : where.and(D.ID.le(page.upToId()));
  }

  /** The ids, keys and lanes of {@code page}'s rows, in id order, unlocked. */
  static List<Record3<Long, String, Integer>> candidates(DSLContext dsl, DeadPage page) {
    return dsl.select(D.ID, D.ORDERING_KEY, D.LANE)
        .from(D)
        .where(inPage(page))
        .orderBy(D.ID)
        .limit(page.limit())
        .fetch();
  }

  /** Where the page after {@code page} starts, given how many rows it found and the last id. */
  static OptionalLong next(DeadPage page, int found, long lastId) {
    return found < page.limit() ? OptionalLong.empty() : OptionalLong.of(lastId);
  }

  static List<DeadRowSummary> list(DSLContext dsl, DeadPage page) {
    Field<Integer> bodyBytes = DSL.function("octet_length", SQLDataType.INTEGER, D.BODY);
    return dsl.select(
            D.ID,
            D.MESSAGE_ID,
            D.TRANSPORT,
            D.DESTINATION,
            D.MESSAGE_TYPE,
            D.ORDERING_KEY,
            D.TENANT_ID,
            D.ATTEMPTS,
            D.LAST_ERROR,
            D.FAILED_AT,
            D.REASON,
            D.ERROR_FINGERPRINT,
            bodyBytes)
        .from(D)
        .where(inPage(page))
        .orderBy(D.ID)
        .limit(page.limit())
        .fetch(
            r ->
                new DeadRowSummary(
                    r.value1(),
                    r.value2(),
                    r.value3(),
                    r.value4(),
                    r.value5(),
                    r.value6(),
                    r.value7(),
                    r.value8(),
                    r.value9(),
                    r.value10().toInstant(),
                    r.value11(),
                    r.value12(),
                    r.value13()));
  }

  /**
   * The groups of the rows {@code filter} matches, by fingerprint: most rows first, then the latest
   * failure; at most {@code limit}.
   */
  static List<DeadGroup> groups(DSLContext dsl, DeadFilter filter, int limit) {
    Field<Integer> rows = count();
    Field<OffsetDateTime> last = max(D.FAILED_AT);
    return dsl.select(
            D.ERROR_FINGERPRINT,
            rows,
            min(D.FAILED_AT),
            last,
            min(D.LAST_ERROR),
            arrayAggDistinct(D.DESTINATION).orderBy(D.DESTINATION))
        .from(D)
        .where(matching(D, filter))
        .groupBy(D.ERROR_FINGERPRINT)
        .orderBy(rows.desc(), last.desc(), D.ERROR_FINGERPRINT.asc().nullsLast())
        .limit(limit)
        .fetch(
            r ->
                new DeadGroup(
                    r.value1(),
                    r.value2(),
                    r.value3().toInstant(),
                    r.value4().toInstant(),
                    r.value5(),
                    Arrays.asList(r.value6())));
  }

  static Optional<DeadRow> find(DSLContext dsl, long id) {
    return dsl.selectFrom(D).where(D.ID.eq(id)).fetchOptional().map(DeadRowQueries::row);
  }

  private static DeadRow row(RelayerOutboxDeadRecord r) {
    return new DeadRow(
        r.getId(),
        r.getMessageId(),
        r.getTransport(),
        r.getDestination(),
        r.getMessageType(),
        HeadersJson.read(r.getHeaders()),
        r.getBody(),
        r.getCreatedAt().toInstant(),
        r.getOrderingKey(),
        r.getLane(),
        r.getDeliverAt() == null ? null : r.getDeliverAt().toInstant(),
        r.getTenantId(),
        r.getAttempts(),
        r.getLastError(),
        r.getFailedAt().toInstant(),
        r.getReason(),
        r.getErrorFingerprint());
  }

  static long countMatching(DSLContext dsl, DeadFilter filter) {
    return dsl.fetchCount(D, matching(D, filter));
  }

  static OptionalLong highestId(DSLContext dsl) {
    Long highest = dsl.select(max(D.ID)).from(D).fetchOne(0, Long.class);
    return highest == null ? OptionalLong.empty() : OptionalLong.of(highest);
  }
}
