package dev.relayer.bench.relayer;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.anchor.AnchorScenario;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.peer.PeerScenario;
import dev.relayer.bench.pipeline.BurnDownDriver;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.bench.report.Ratio;
import dev.relayer.dispatch.DispatchOptions;
import java.util.List;
import javax.sql.DataSource;

/**
 * Scenario 3, burn-down: {@code --rows} unordered rows waiting, drained once by direct dispatch and
 * once by the sweeper alone, with the no-op {@link ProbeTransport}.
 */
public final class BurnDownScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "burndown";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "3. Burn-down: direct dispatch and sweeper";
  }

  @Override
  // One string per Markdown paragraph, wrapped at spaces: as a text block every wrap would need
  // a line-continuation escape.
  @SuppressWarnings("StringConcatToTextBlock")
  public String description() {
    return String.join(
        "\n",
        "`--rows` unordered rows loaded into `relayer_outbox` (settled as in *Method*), drained"
            + " through a `RelayerDispatcher` over a jOOQ `DSLContext` on a HikariCP pool of"
            + " `--pool-size`, with a no-op transport (`ProbeTransport`, batches of up to 1000;"
            + " unlike the in-memory transport it keeps nothing, so the heap figure is"
            + " Relayer's own).",
        "",
        "- **direct**: Relayer's default dispatch options (workers, claim batch, queue of 10,000"
            + " ids) unless `--relayer-workers` / `--claim-batch` say otherwise; a feeder hands the"
            + " ids to `afterCommit(ids)` whenever the queue has room for a claim batch, as if the"
            + " rows had just committed. Each worker claims by ids (one transaction), sends, and"
            + " deletes fenced (another).",
        "- **sweeper**: `RelayerMaintenance` alone, recovery delay 0, `batchSize` ="
            + " `--sweep-batch`, default sweep interval (passes follow each other at once while"
            + " they find full pages); each pass locks a keyset page, sends and deletes inside its"
            + " lease transaction.");
  }

  @Override
  public List<Ratio> ratios() {
    return List.of(
        new Ratio(
            "direct burn-down / pgbench drain",
            ID + ".direct.msgs",
            AnchorScenario.DRAIN_KEY,
            "≥ 0.8"),
        new Ratio(
            "sweeper burn-down / pgbench drain",
            ID + ".sweeper.msgs",
            AnchorScenario.DRAIN_KEY,
            "≥ 0.8"),
        new Ratio(
            "direct burn-down / peer burn-down",
            ID + ".direct.msgs",
            PeerScenario.BURN_DOWN_KEY,
            "≥ 3"),
        new Ratio(
            "sweeper burn-down / peer burn-down",
            ID + ".sweeper.msgs",
            PeerScenario.BURN_DOWN_KEY,
            "≥ 3"));
  }

  @Override
  public void run(ScenarioContext context) throws Exception {
    drainBothPaths(context, context.options().rows(), "Relayer burn-down, ");
  }

  @Override
  public boolean warmsUp() {
    return true;
  }

  @Override
  public void warmUp(ScenarioContext context) throws Exception {
    warmUpBothPaths(context);
  }

  /** Drains {@link BenchOptions#warmUpRows()} rows by each path, untimed. */
  static void warmUpBothPaths(ScenarioContext context) throws Exception {
    drainBothPaths(context, context.options().warmUpRows(), "");
  }

  /** Loads and drains {@code rows} rows by direct dispatch, then as many by the sweeper alone. */
  private static void drainBothPaths(ScenarioContext context, long rows, String labelPrefix)
      throws Exception {
    ScenarioDatabase db = context.database();
    db.installRelayerSchema();
    DataSource pool = db.pool("relayer", context.options().poolSize());
    direct(context, db, pool, rows, "direct", labelPrefix + "direct dispatch");
    db.execute("TRUNCATE " + OutboxRows.TABLE);
    sweeper(context, db, pool, rows, "sweeper", labelPrefix + "sweeper alone");
  }

  /** Loads {@code rows} rows and drains them by direct dispatch; records under {@code key}. */
  private static void direct(
      ScenarioContext context,
      ScenarioDatabase db,
      DataSource pool,
      long rows,
      String key,
      String label)
      throws Exception {
    OutboxRows.insertPending(db, rows);
    timeDirect(context, pool, IdRange.of(db), rows, 0, label).record(context, key, label);
  }

  /**
   * Drains the last {@code rows} ids of {@code range} by direct dispatch; records nothing, and
   * times from the {@code untimedRows}-th delivery (see {@link BurnDownDriver#measure}).
   */
  static BurnDownDriver.Timing timeDirect(
      ScenarioContext context,
      DataSource pool,
      IdRange range,
      long rows,
      long untimedRows,
      String label)
      throws Exception {
    int queue = DispatchOptions.defaults().queueCapacity();
    DeliveryProbe probe = new DeliveryProbe();
    try (RelayerRig rig = RelayerRig.started(pool, probe, context.options(), queue);
        DirectFeeder feeder =
            new DirectFeeder(rig.dispatcher(), range.last() - rows + 1, range.last(), queue)) {
      return BurnDownDriver.measure(context, label, feeder, probe, rows, untimedRows);
    }
  }

  /** Loads {@code rows} rows and drains them by the sweeper alone; records under {@code key}. */
  private static void sweeper(
      ScenarioContext context,
      ScenarioDatabase db,
      DataSource pool,
      long rows,
      String key,
      String label)
      throws Exception {
    OutboxRows.insertPending(db, rows);
    timeSweeper(context, pool, rows, 0, label).record(context, key, label);
  }

  /**
   * Drains the first {@code rows} rows by the sweeper alone; records nothing, and times from the
   * {@code untimedRows}-th delivery (see {@link BurnDownDriver#measure}).
   */
  static BurnDownDriver.Timing timeSweeper(
      ScenarioContext context, DataSource pool, long rows, long untimedRows, String label)
      throws Exception {
    DeliveryProbe probe = new DeliveryProbe();
    try (RelayerRig rig = RelayerRig.idle(pool, probe, context.options())) {
      return BurnDownDriver.measure(
          context, label, new SweeperRun(rig, context.options()), probe, rows, untimedRows);
    }
  }
}
