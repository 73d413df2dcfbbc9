package dev.relayer.store.ops;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.store.internal.OutboxSql.PARKED;
import static dev.relayer.store.internal.OutboxSql.PENDING;
import static org.jooq.impl.DSL.any;

import dev.relayer.jooq.generated.tables.RelayerOutbox;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/** The parked keys' reads and the operator's release of parked heads, built per call. */
final class ParkedKeyQueries {
  private static final RelayerOutbox O = RELAYER_OUTBOX;

  private ParkedKeyQueries() {}

  /** Parked heads, of one lane or ({@code lane} null) all; of one key when {@code key} is set. */
  static List<ParkedKey> parkedKeys(DSLContext dsl, @Nullable Integer lane, @Nullable String key) {
    Condition where = O.STATUS.eq(PARKED);
    if (lane != null) {
      where = where.and(O.LANE.eq(lane));
    }
    if (key != null) {
      where = where.and(O.ORDERING_KEY.eq(key));
    }
    return dsl.select(
            O.ORDERING_KEY, O.LANE, O.ID, O.MESSAGE_ID, O.ATTEMPTS, O.LAST_ERROR, O.PARKED_AT)
        .from(O)
        .where(where)
        .orderBy(O.LANE, O.ORDERING_KEY)
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

  /** Makes parked heads pending again with fresh attempts; {@code key} null means all in scope. */
  static int unpark(DSLContext dsl, @Nullable Integer lane, @Nullable String key) {
    Condition where = O.STATUS.eq(PARKED);
    if (lane != null) {
      where = where.and(O.LANE.eq(lane));
    }
    if (key != null) {
      where = where.and(O.ORDERING_KEY.eq(key));
    }
    return dsl.update(O)
        .set(O.STATUS, PENDING)
        .setNull(O.PARKED_AT)
        .set(O.ATTEMPTS, 0)
        .where(where)
        .execute();
  }

  /** The keys of {@code keys} that are parked. */
  static Set<String> parkedAmong(DSLContext dsl, Set<String> keys) {
    if (keys.isEmpty()) {
      return Set.of();
    }
    return new TreeSet<>(
        dsl.selectDistinct(O.ORDERING_KEY)
            .from(O)
            .where(O.STATUS.eq(PARKED))
            .and(O.ORDERING_KEY.eq(any(keys.toArray(String[]::new))))
            .fetch(O.ORDERING_KEY));
  }
}
