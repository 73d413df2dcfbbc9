package dev.relayer.store.health;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.store.internal.OutboxSql.PARKED;
import static dev.relayer.store.internal.OutboxSql.PENDING;
import static org.jooq.impl.DSL.coalesce;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.orderBy;
import static org.jooq.impl.DSL.rowNumber;
import static org.jooq.impl.DSL.sum;
import static org.jooq.impl.DSL.when;

import dev.relayer.jooq.generated.tables.RelayerOutbox;
import dev.relayer.store.internal.OutboxSql;
import dev.relayer.store.ops.ParkedKey;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SelectField;
import org.jooq.SortField;
import org.jooq.Table;
import org.jspecify.annotations.Nullable;

/**
 * The operator's status reads of the outbox: the backlog grouped by transport, destination or
 * tenant, and the longest-parked keys. Built per call; they run at an operator's pace.
 */
final class BacklogQueries {

  private static final RelayerOutbox O = RELAYER_OUTBOX;

  private static final String[] COUNTS = {
    "rows", "eligible", "in_flight", "retrying", "scheduled", "parked"
  };

  private BacklogQueries() {}

  /**
   * The breakdown, in one statement: one scan of the outbox grouped by the query's keys, numbered
   * by rows (most first), then grouped again so that the first {@code limit} groups stay apart and
   * the rest collapse into one row:
   *
   * <pre>{@code
   * with g as (
   *   select transport k0, destination k1, count(*) rows, count(*) filter (where <eligible>) ...,
   *          min(coalesce(deliver_at, created_at)) filter (where <due>) oldest_pending, ...,
   *          row_number() over (order by count(*) desc, transport, destination) n
   *   from outbox group by transport, destination)
   * select n <= 20 listed, case when n <= 20 then k0 end, case when n <= 20 then k1 end,
   *        count(*) groups, sum(rows), ..., min(oldest_pending), min(oldest_eligible)
   * from g group by 1's expressions order by min(n)
   * }</pre>
   *
   * The limit is a literal, so that the expressions in the select list and the group by are the
   * same.
   */
  static BacklogBreakdown breakdown(DSLContext dsl, BacklogQuery query) {
    OffsetDateTime at = OffsetDateTime.ofInstant(query.now(), ZoneOffset.UTC);
    Field<OffsetDateTime> dueSince = coalesce(O.DELIVER_AT, O.CREATED_AT);
    Condition pending = O.STATUS.eq(PENDING);
    Condition due = pending.and(O.DELIVER_AT.isNull().or(O.DELIVER_AT.le(at)));
    Condition held = O.CLAIM_EXPIRES_AT.gt(at);
    Condition[] states = {
      OutboxSql.eligible(at),
      due.and(held).and(O.LAST_ERROR.isNull()),
      due.and(held).and(O.LAST_ERROR.isNotNull()),
      pending.and(O.DELIVER_AT.gt(at)),
      O.STATUS.eq(PARKED)
    };
    List<Field<String>> keys =
        switch (query.by()) {
          case TRANSPORT -> List.of(O.TRANSPORT);
          case DESTINATION -> List.of(O.TRANSPORT, O.DESTINATION);
          case TENANT -> List.of(O.TENANT_ID);
        };

    List<SelectField<?>> perGroup = new ArrayList<>();
    List<SortField<?>> order = new ArrayList<>();
    order.add(count().desc());
    for (int i = 0; i < keys.size(); i++) {
      perGroup.add(keys.get(i).as("k" + i));
      order.add(keys.get(i).asc().nullsLast());
    }
    perGroup.add(count().as(COUNTS[0]));
    for (int i = 0; i < states.length; i++) {
      perGroup.add(count().filterWhere(states[i]).as(COUNTS[i + 1]));
    }
    perGroup.add(min(dueSince).filterWhere(due).as("oldest_pending"));
    perGroup.add(min(dueSince).filterWhere(states[0]).as("oldest_eligible"));
    perGroup.add(rowNumber().over(orderBy(order)).as("n"));
    CommonTableExpression<?> grouped = name("g").as(dsl.select(perGroup).from(O).groupBy(keys));

    Table<?> g = grouped;
    Field<Long> n = g.field("n", Long.class);
    Field<Boolean> listed = field(n.le(inline((long) query.limit())));
    List<Field<?>> select = new ArrayList<>();
    List<Field<?>> groupBy = new ArrayList<>();
    select.add(listed);
    groupBy.add(listed);
    List<Field<String>> groupKeys = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      Field<String> key = when(n.le(inline((long) query.limit())), g.field("k" + i, String.class));
      groupKeys.add(key);
      select.add(key);
      groupBy.add(key);
    }
    Field<Integer> groups = count();
    select.add(groups);
    List<Field<Long>> sums = new ArrayList<>();
    for (String column : COUNTS) {
      Field<Long> total = sum(g.field(column, Long.class)).cast(Long.class);
      sums.add(total);
      select.add(total);
    }
    Field<OffsetDateTime> oldestPending = min(g.field("oldest_pending", OffsetDateTime.class));
    Field<OffsetDateTime> oldestEligible = min(g.field("oldest_eligible", OffsetDateTime.class));
    select.add(oldestPending);
    select.add(oldestEligible);

    List<BacklogGroup> listedGroups = new ArrayList<>();
    long otherGroups = 0;
    BacklogCounts others = BacklogCounts.NONE;
    BacklogCounts total = BacklogCounts.NONE;
    for (Record r :
        dsl.with(grouped).select(select).from(g).groupBy(groupBy).orderBy(min(n)).fetch()) {
      BacklogCounts counts =
          new BacklogCounts(
              r.get(sums.get(0)),
              r.get(sums.get(1)),
              r.get(sums.get(2)),
              r.get(sums.get(3)),
              r.get(sums.get(4)),
              r.get(sums.get(5)),
              OutboxSql.age(r.get(oldestPending), query.now()),
              OutboxSql.age(r.get(oldestEligible), query.now()));
      total = total.plus(counts);
      if (Boolean.TRUE.equals(r.get(listed))) {
        listedGroups.add(group(query.by(), groupKeys, r, counts));
      } else {
        otherGroups = r.get(groups);
        others = counts;
      }
    }
    return new BacklogBreakdown(query.now(), query.by(), listedGroups, otherGroups, others, total);
  }

  private static BacklogGroup group(
      BacklogGrouping by, List<Field<String>> keys, Record r, BacklogCounts counts) {
    @Nullable String first = r.get(keys.get(0));
    return switch (by) {
      case TRANSPORT -> new BacklogGroup(first, null, null, counts);
      case DESTINATION -> new BacklogGroup(first, r.get(keys.get(1)), null, counts);
      case TENANT -> new BacklogGroup(null, null, first, counts);
    };
  }

  /** The parked heads that have been parked longest, at most {@code limit}, oldest first. */
  static List<ParkedKey> longestParked(DSLContext dsl, int limit) {
    // A head parked by hand (an update outside Relayer) may have no error: an empty text.
    return dsl.select(
            O.ORDERING_KEY,
            O.LANE,
            O.ID,
            O.MESSAGE_ID,
            O.ATTEMPTS,
            coalesce(O.LAST_ERROR, inline("")),
            O.PARKED_AT)
        .from(O)
        .where(O.STATUS.eq(PARKED))
        .orderBy(O.PARKED_AT, O.ID)
        .limit(limit)
        .fetch(
            r ->
                new ParkedKey(
                    r.value1(),
                    r.value2(),
                    r.value3(),
                    r.value4(),
                    r.value5(),
                    r.value6(),
                    r.value7().toInstant()));
  }
}
