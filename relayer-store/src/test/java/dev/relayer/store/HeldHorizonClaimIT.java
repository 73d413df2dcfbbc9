package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.schema.SchemaNames;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.TestPassSql;
import dev.relayer.testkit.HeldSnapshot;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The direct claim while a held snapshot keeps the outbox's dead index entries: with a plan that
 * does not know which ids it will be given (a generic plan, as PostgreSQL caches for a statement
 * prepared on the server; forced here, so that the test does not depend on the planner's cost
 * estimates), the claim must still read only the index entries of its ids, not every entry of an
 * unordered row the pending index holds. Counted with PostgreSQL's per-transaction statistics of
 * each index, on a real server.
 */
class HeldHorizonClaimIT {

  private static final int DEAD_ROWS = 20_000;

  StoreFixture fx;

  @BeforeEach
  void setUp() {
    fx = new StoreFixture(SchemaOptions.of("held horizon claim", "hh_"));
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  @Test
  void aDirectClaimOnAGenericPlanReadsTheEntriesOfItsIdsAloneWhileASnapshotKeepsDeadOnes()
      throws Exception {
    String outbox = fx.store.names().qualified(SchemaNames.OUTBOX);
    // Rows of an earlier traffic, still pending; the table is never analysed, as a new install's
    // is until autovacuum first reaches it.
    fx.store.enqueue(fx.dsl, StoreFixture.unordered(300));

    try (HeldSnapshot pin = HeldSnapshot.take(fx.connect(), "held-horizon-claim", outbox);
        Connection claimer = fx.connect()) {
      // Delivered traffic behind the pin: every row is gone, every index entry stays.
      fx.execute(
          "INSERT INTO %s (message_id, transport, destination, message_type, body)"
              + " SELECT gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', '\\x00'"
              + " FROM generate_series(1, "
              + DEAD_ROWS
              + ")",
          SchemaNames.OUTBOX);
      fx.execute("DELETE FROM %s WHERE id > (SELECT min(id) + 299 FROM %1$s)", SchemaNames.OUTBOX);
      List<Long> ids = fx.store.enqueue(fx.dsl, StoreFixture.unordered(2));

      try (Statement s = claimer.createStatement()) {
        s.execute("SET plan_cache_mode = force_generic_plan");
      }
      claimer.setAutoCommit(false);
      DSLContext onClaimer = fx.open(claimer);
      Claim claim =
          TestPassSql.of(fx.store)
              .outbox()
              .claimByIds(onClaimer, new ClaimByIds(ids, Instant.now(), Duration.ofSeconds(30)));
      long entriesRead =
          entriesRead(onClaimer, SchemaNames.OUTBOX + "_pending_idx")
              + entriesRead(onClaimer, SchemaNames.OUTBOX + "_pkey");
      claimer.commit();

      assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactlyElementsOf(ids);
      // The pending index alone holds 20,302 entries of unordered rows here.
      assertThat(entriesRead).isLessThan(100);
    }
  }

  /** Index entries read by this transaction so far from the store's index {@code base}. */
  private long entriesRead(DSLContext dsl, String base) {
    return dsl.fetchSingle(
            "SELECT pg_stat_get_xact_tuples_returned(to_regclass({0}))",
            fx.store.names().qualified(base))
        .into(Long.class);
  }
}
