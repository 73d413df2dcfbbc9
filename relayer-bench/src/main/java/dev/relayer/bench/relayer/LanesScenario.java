package dev.relayer.bench.relayer;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.pipeline.BurnDownDriver;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.bench.pipeline.SteadyStateDriver;
import dev.relayer.dispatch.LaneOptions;
import dev.relayer.store.StoreOptions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Ordered lanes: burn-down of waiting ordered rows through {@code RelayerLanes} for each of {@code
 * --lane-keys} key counts (with a transport that does not keep batch order, and with one that
 * does), and commit-to-send latency of ordered messages woken by commits.
 */
public final class LanesScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "lanes";

  /** Keys the steady-state producers spread their ordered messages over. */
  static final int STEADY_KEYS = 100;

  /** Poll interval of the steady-state lanes: far longer than any measured latency. */
  static final Duration STEADY_POLL = Duration.ofSeconds(60);

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "Ordered lanes: burn-down by key count and commit-to-send latency";
  }

  @Override
  public String description() {
    return String.join(
        "\n",
        "`RelayerLanes` with Relayer's default lane options (16 lanes, 2 threads, 100 keys and 100"
            + " rows per key per claim, up to 10 claims per pass) over a started `RelayerDispatcher`, on a HikariCP pool of"
            + " `--pool-size`, with the no-op `ProbeTransport` (batches of up to 1000).",
        "",
        "- **burn-down, K keys**: `--lane-rows` ordered rows loaded round-robin over K keys"
            + " (`--lane-keys`), so each key's rows are in id order, each in its key's lane; the"
            + " clock runs from `lanes.start()` until the transport has seen every row.",
        "  - *pipelined*: the transport does not declare `preservesBatchOrder()`, so a key moves"
            + " one row per claim (its next row waits for the previous one's acceptance).",
        "  - *batch order*: the transport declares `preservesBatchOrder()`, so a claim sends up to"
            + " `rowsPerKey` rows of a key in one batch.",
        "- **steady, with wake-ups**: as the *steady* scenario, but every message carries one of "
            + STEADY_KEYS
            + " ordering keys (round-robin) and is sent by the lanes, `listen = true`,"
            + " `pollInterval` = "
            + STEADY_POLL.toSeconds()
            + " s, so a message is sent because its commit woke its lane (in-process, the"
            + " instance owns every lane), not by polling. Unordered direct dispatch is idle."
            + " It runs first, on the scenario's fresh database; the burn-downs follow.");
  }

  @Override
  public Map<String, String> targets() {
    return Map.of(ID + ".steady.at50.p50", "≤ 2 ms", ID + ".steady.at50.p99", "≤ 10 ms");
  }

  @Override
  public boolean warmsUp() {
    return true;
  }

  /** One steady-state run, untimed: cold, the lanes' capacity was two thirds of the warm one. */
  @Override
  public void warmUp(ScenarioContext context) throws Exception {
    context.database().installRelayerSchema();
    steady(context, context.database().pool("relayer", context.options().poolSize()));
  }

  @Override
  public void run(ScenarioContext context) throws Exception {
    ScenarioDatabase db = context.database();
    BenchOptions o = context.options();
    db.installRelayerSchema();
    DataSource pool = db.pool("relayer", o.poolSize());
    // The steady state first, on the fresh database, as in its warm-up. Run after the burn-downs
    // and a TRUNCATE (which keeps the table's statistics of the burn-downs' rows), its p50 at half
    // load was 7-13 ms against about 1 ms here.
    steady(context, pool);
    db.execute("TRUNCATE " + OutboxRows.TABLE);
    int laneCount = StoreOptions.defaults().laneCount();
    for (boolean batchOrder : new boolean[] {false, true}) {
      for (int keys : o.laneKeys()) {
        String variant = batchOrder ? "batchorder" : "pipelined";
        OutboxRows.insertOrdered(db, o.laneRows(), keys, laneCount);
        DeliveryProbe probe = new DeliveryProbe();
        try (RelayerRig rig =
            RelayerRig.startedWith(pool, probe, o, new ProbeTransport(probe, 1000, batchOrder))) {
          BurnDownDriver.run(
              context,
              "burndown." + variant + ".k" + keys,
              String.format(
                  "lanes burn-down, %,d keys, %s",
                  keys, batchOrder ? "batch-order transport" : "pipelined transport"),
              () -> rig.startLanes(LaneOptions.defaults()),
              probe,
              o.laneRows());
        }
        db.execute("TRUNCATE " + OutboxRows.TABLE);
      }
    }
  }

  /** The steady state with wake-ups: capacity, then latency at 25/50/75% of it. */
  private static void steady(ScenarioContext context, DataSource pool) throws Exception {
    BenchOptions o = context.options();
    DeliveryProbe probe = new DeliveryProbe();
    AtomicLong next = new AtomicLong();
    try (RelayerRig rig =
        RelayerRig.startedWith(pool, probe, o, new ProbeTransport(probe, 1000, false))) {
      rig.startLanes(LaneOptions.builder().listen(true).pollInterval(STEADY_POLL).build());
      SteadyStateDriver.of(
              context,
              "steady",
              "lanes steady state, " + STEADY_KEYS + " keys, wake-ups",
              seq -> rig.produce(seq, "key-" + Math.floorMod(next.getAndIncrement(), STEADY_KEYS)),
              probe)
          .run();
    }
  }
}
