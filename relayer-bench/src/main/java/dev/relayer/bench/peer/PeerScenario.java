package dev.relayer.bench.peer;

import com.gruelbox.transactionoutbox.TransactionOutbox;
import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.RowsScenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.anchor.AnchorScenario;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.pipeline.BurnDownDriver;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.bench.pipeline.SteadyStateDriver;
import dev.relayer.bench.report.Ratio;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Properties;
import javax.sql.DataSource;

/**
 * Scenario 6, the peer: com.gruelbox:transactionoutbox-core over the same PostgreSQL, pool size and
 * payload, with a no-op sink — the burn-down and the steady state of scenarios 3 and 4.
 */
public final class PeerScenario implements RowsScenario {

  /** Scenario id. */
  public static final String ID = "peer";

  /** Key of the peer's burn-down rate. */
  public static final String BURN_DOWN_KEY = ID + ".burndown.msgs";

  /** Key of the peer's steady-state capacity. */
  public static final String CAPACITY_KEY = ID + ".steady.capacity.msgs";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "6. Peer: transaction-outbox " + peerVersion();
  }

  @Override
  public String description() {
    return String.join(
        "\n",
        "com.gruelbox:transactionoutbox-core "
            + peerVersion()
            + " (its jOOQ module does not resolve at this version; the README's plain"
            + " `TransactionManager.fromDataSource` is used) over a HikariCP pool of `--pool-size`"
            + " connections: `DefaultPersistor` with `Dialect.POSTGRESQL_9`, an `ExecutorSubmitter`"
            + " with `--peer-workers` threads and a bounded queue of 16384 that waits for space,"
            + " a flush loop (`while (outbox.flush()) {}`, then 1 s pause) with"
            + " `flushBatchSize` = `--peer-flush-batch`, and a no-op sink. A message is a call"
            + " `send(seq, destination, type, headersJson, body)` with the same 256-byte body"
            + " (as a String: the peer stores invocations as JSON text).",
        "",
        "- **burn-down**: `--rows` due entries in the peer's format (one scheduled through its"
            + " API, copied by the server with fresh ids; then `VACUUM ANALYZE` and `CHECKPOINT`)"
            + " drained by the flush loop: each flush selects a batch `FOR UPDATE SKIP LOCKED`,"
            + " pushes each entry's next attempt back one row at a time, and hands the entries"
            + " to the workers, which lock, invoke and delete each entry in its own transaction.",
        "- **steady**: one message per transaction; after commit the peer hands the entry to its"
            + " executor (its direct path); capacity and latency levels as described under"
            + " *Method*.");
  }

  @Override
  public List<Ratio> ratios() {
    return List.of(
        new Ratio("peer burn-down / pgbench drain", BURN_DOWN_KEY, AnchorScenario.DRAIN_KEY, ""),
        new Ratio(
            "peer steady capacity / pgbench combined enqueue+drain",
            CAPACITY_KEY,
            AnchorScenario.COMBINED_KEY,
            ""));
  }

  /**
   * A burn-down of {@code burnDownRows} entries and a steady-state run (in the warm-up, {@link
   * BenchOptions#warmUpRows()} entries and both untimed).
   */
  @Override
  public void run(ScenarioContext context, long burnDownRows) throws Exception {
    ScenarioDatabase db = context.database();
    BenchOptions o = context.options();
    DataSource pool = db.pool("peer", o.poolSize());
    burnDown(context, pool, burnDownRows);
    db.execute("TRUNCATE " + PeerOutbox.TABLE);

    DeliveryProbe steadyProbe = new DeliveryProbe();
    try (PeerOutbox outbox =
        new PeerOutbox(pool, steadyProbe, o.peerWorkers(), o.peerFlushBatch())) {
      outbox.startDraining();
      SteadyStateDriver.of(context, "steady", "peer steady state", outbox, steadyProbe).run();
    }
  }

  /** Preloads {@code rows} entries and times the flush loop draining them. */
  private static void burnDown(ScenarioContext context, DataSource pool, long rows)
      throws Exception {
    BenchOptions o = context.options();
    DeliveryProbe probe = new DeliveryProbe();
    PeerOutbox.preload(context.database(), pool, rows);
    try (PeerOutbox outbox = new PeerOutbox(pool, probe, o.peerWorkers(), o.peerFlushBatch())) {
      BurnDownDriver.run(context, "burndown", "peer burn-down (flush loop)", outbox, probe, rows);
    }
  }

  /** The peer's version, from the Maven metadata inside its jar. */
  static String peerVersion() {
    String resource = "/META-INF/maven/com.gruelbox/transactionoutbox-core/pom.properties";
    try (InputStream in = TransactionOutbox.class.getResourceAsStream(resource)) {
      if (in != null) {
        Properties properties = new Properties();
        properties.load(in);
        return properties.getProperty("version", "(unknown version)");
      }
    } catch (IOException e) {
      // fall through
    }
    return "(unknown version)";
  }
}
