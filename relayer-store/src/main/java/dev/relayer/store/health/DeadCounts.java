package dev.relayer.store.health;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX_DEAD;
import static org.jooq.impl.DSL.select;

import dev.relayer.jooq.generated.tables.RelayerOutboxDead;
import dev.relayer.store.internal.OutboxSql;
import java.time.Instant;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;

/** Counts of the dead table, for the health reads. */
final class DeadCounts {
  private static final RelayerOutboxDead D = RELAYER_OUTBOX_DEAD;

  private DeadCounts() {}

  static long count(DSLContext dsl) {
    return dsl.fetchCount(D);
  }

  /** {@code (select count(*) from dead)}, for the health read. */
  static Field<Integer> countField() {
    return DSL.field(select(DSL.count()).from(D));
  }

  /** {@code (select count(*) from dead where failed_at > since)}, for the health read. */
  static Field<Integer> countSinceField(Instant since) {
    return DSL.field(select(DSL.count()).from(D).where(D.FAILED_AT.gt(OutboxSql.utc(since))));
  }
}
