package dev.relayer.bench.relayer;

import dev.relayer.bench.Payload;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.LaneClaim;
import dev.relayer.store.pass.LanePass;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Passes;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * What one lane claim reads: {@code --rows} ordered rows in a single lane over {@value #KEYS} keys,
 * then claims of several sizes, each in a transaction that is rolled back, counting the blocks the
 * claim statement fetched from the outbox and its indexes ({@code pg_stat_get_xact_blocks_fetched},
 * shared-buffer hits and reads).
 */
public final class LaneClaimScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "lane-claim";

  /** Keys the lane's rows are spread over, round-robin. */
  static final int KEYS = 10_000;

  private static final String BLOCKS =
      "SELECT sum(pg_stat_get_xact_blocks_fetched(c.oid)) FROM pg_class c"
          + " WHERE c.oid = to_regclass({0}) OR c.oid IN"
          + " (SELECT indexrelid FROM pg_index WHERE indrelid = to_regclass({0}))";

  /** A claim shape: heads of {@code keys} keys, each with up to {@code rowsPerKey} rows. */
  private record Shape(int keys, int rowsPerKey) {}

  private static final List<Shape> SHAPES =
      List.of(new Shape(10, 1), new Shape(100, 1), new Shape(1_000, 1), new Shape(100, 100));

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "One lane claim in a large lane: blocks read per row claimed";
  }

  @Override
  public String description() {
    return "`--rows` ordered rows (1M) loaded round-robin over "
        + String.format("%,d", KEYS)
        + " keys, all in one lane (a store with one lane), then `VACUUM ANALYZE`. Each claim"
        + " (heads of 10, 100 and 1,000 keys, and 100 keys with runs of up to 100 rows on a"
        + " transport that takes runs) runs in a lane pass whose transaction is rolled back; the"
        + " figure is the blocks the claim fetched from the outbox and its indexes, as"
        + " `EXPLAIN (ANALYZE, BUFFERS)` counts shared hits and reads, over the rows it claimed.";
  }

  @Override
  public void run(ScenarioContext context) throws Exception {
    ScenarioDatabase db = context.database();
    db.installRelayerSchema();
    OutboxRows.insertOrdered(db, context.options().rows(), KEYS, 1);
    DataSource pool = db.pool("relayer", 2);
    DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
    RelayerStore store = RelayerStore.create(StoreOptions.defaults().withLaneCount(1));
    Passes passes = Passes.of(store);
    String outbox = store.names().qualified("outbox");
    LeaseRequest lease = new LeaseRequest("lane/0", "lane-claim-bench", Duration.ofMinutes(1));
    for (Shape shape : SHAPES) {
      long[] measured = new long[3];
      try {
        dsl.transaction(
            tx -> {
              LanePass pass = passes.lanes(tx.dsl(), List.of(0), lane -> lease);
              long before = tx.dsl().fetchSingle(BLOCKS, outbox).into(Long.class);
              long started = System.nanoTime();
              Claim claim =
                  pass.claim(
                      new LaneClaim(
                          Set.of(0),
                          shape.keys(),
                          shape.rowsPerKey() - 1,
                          Set.of(Payload.TRANSPORT),
                          Instant.now(),
                          Duration.ofMinutes(1)));
              measured[2] = System.nanoTime() - started;
              measured[0] = tx.dsl().fetchSingle(BLOCKS, outbox).into(Long.class) - before;
              measured[1] = claim.messages().size();
              throw new RolledBack();
            });
      } catch (RolledBack expected) {
        // the claim is undone; the next shape claims the same rows
      }
      String key = "claim.k" + shape.keys() + ".r" + shape.rowsPerKey();
      String label =
          String.format(
              "claim of %,d keys, up to %d row%s each",
              shape.keys(), shape.rowsPerKey(), shape.rowsPerKey() == 1 ? "" : "s");
      context.record(key + ".rows", label + ": rows claimed", "rows", (double) measured[1]);
      context.record(key + ".blocks", label + ": blocks read", "blocks", (double) measured[0]);
      context.record(
          key + ".perRow",
          label + ": blocks per row claimed",
          "blocks",
          measured[1] == 0 ? 0 : (double) measured[0] / measured[1]);
      context.record(key + ".ms", label + ": time", "ms", measured[2] / 1e6);
    }
  }

  /** Thrown to roll a claim's transaction back. */
  private static final class RolledBack extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RolledBack() {
      super(null, null, false, false);
    }
  }
}
