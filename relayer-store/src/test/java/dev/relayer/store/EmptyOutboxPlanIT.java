package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.schema.SchemaNames;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.TestPassSql;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pass's statements on a connection whose server-side prepared statements got their generic plan
 * while the outbox was empty and never analysed, as on a new install or a fresh benchmark database:
 * once the table has grown, the fenced delete of a pass must still find its rows by the primary
 * key, not read the whole table. Counted with PostgreSQL's per-transaction statistics of the table,
 * on a real server.
 */
class EmptyOutboxPlanIT {

  /** pgjdbc prepares a statement on the server at its fifth execution; a few more to be sure. */
  private static final int PASSES_ON_THE_EMPTY_TABLE = 8;

  private static final int ROWS_LATER = 20_000;

  StoreFixture fx;

  @BeforeEach
  void setUp() {
    fx = new StoreFixture(SchemaOptions.of("empty outbox plan", "ep_"));
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  @Test
  void aPassWhoseDeletePlanWasMadeOnAnEmptyOutboxDeletesByPrimaryKeyOnceTheTableHasGrown()
      throws Exception {
    LeaseRequest lease = new LeaseRequest("sweeper", "instance-a", Duration.ofSeconds(30));
    try (Connection passes = fx.connect()) {
      passes.setAutoCommit(false);
      DSLContext onPasses = fx.open(passes);
      for (int i = 0; i < PASSES_ON_THE_EMPTY_TABLE; i++) {
        TestPassSql.of(fx.store).leases().startLeasedPass(onPasses, lease);
        TestPassSql.of(fx.store)
            .outbox()
            .deleteFenced(onPasses, UUID.randomUUID(), List.of(1L, 2L));
        passes.commit();
      }

      fx.execute(
          "INSERT INTO %s (message_id, transport, destination, message_type, body)"
              + " SELECT gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', '\\x00'"
              + " FROM generate_series(1, "
              + ROWS_LATER
              + ")",
          SchemaNames.OUTBOX);
      List<Long> ids = fx.store.enqueue(fx.dsl, StoreFixture.unordered(2));

      TestPassSql.of(fx.store).leases().startLeasedPass(onPasses, lease);
      int deleted =
          TestPassSql.of(fx.store).outbox().deleteFenced(onPasses, UUID.randomUUID(), ids);
      long sequentialScans = outboxStatistic(onPasses, "pg_stat_get_xact_numscans");
      long blocksRead = outboxStatistic(onPasses, "pg_stat_get_xact_blocks_fetched");
      passes.commit();

      assertThat(deleted).as("another token's rows are not deleted").isZero();
      assertThat(sequentialScans).as("sequential scans of the outbox").isZero();
      // The table holds 20,002 rows on hundreds of pages here.
      assertThat(blocksRead).as("outbox pages read").isLessThan(20);
    }
  }

  /** One of PostgreSQL's per-transaction statistics functions, of the outbox table. */
  private long outboxStatistic(DSLContext dsl, String function) {
    return dsl.fetchSingle(
            "SELECT " + function + "(to_regclass({0}))",
            fx.store.names().qualified(SchemaNames.OUTBOX))
        .into(Long.class);
  }
}
