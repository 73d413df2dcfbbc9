package dev.relayer.bench.relayer;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.pipeline.BurnDownDriver;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.dispatch.LaneOptions;
import dev.relayer.store.StoreOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * Ordered lanes over several Relayer instances: the burn-down of the same waiting ordered rows by
 * 1, 2 and 3 instances (in this JVM, each with its own pool, dispatcher and lanes, so its own owner
 * identity), for each of {@code --lane-keys}.
 */
public final class LaneScaleScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "lanes-scale";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "Ordered lanes over several instances: burn-down by instance count";
  }

  @Override
  public String description() {
    return "`--lane-rows` ordered rows loaded round-robin over K keys (`--lane-keys`), then drained"
        + " by N instances (`--lane-instances`) started together: each a `RelayerDispatcher` and"
        + " `RelayerLanes` at Relayer's default options (16 lanes, 2 lane threads) on a pool of its"
        + " own of `--pool-size`, with the no-op `ProbeTransport` (batches of up to 1000, no batch"
        + " order), all in this JVM. The instances share the lanes among themselves as separate"
        + " processes would: by their heartbeats and the lanes' leases. The clock runs from"
        + " starting the first instance's lanes until the transport has seen every row.";
  }

  @Override
  public void run(ScenarioContext context) throws Exception {
    ScenarioDatabase db = context.database();
    BenchOptions o = context.options();
    db.installRelayerSchema();
    int laneCount = StoreOptions.defaults().laneCount();
    for (int keys : o.laneKeys()) {
      for (int instances : o.laneInstances()) {
        OutboxRows.insertOrdered(db, o.laneRows(), keys, laneCount);
        DeliveryProbe probe = new DeliveryProbe();
        List<RelayerRig> rigs = new ArrayList<>();
        try {
          for (int i = 0; i < instances; i++) {
            rigs.add(
                RelayerRig.startedWith(
                    db.pool("relayer-" + keys + "-" + instances + "-" + i, o.poolSize()),
                    probe,
                    o,
                    new ProbeTransport(probe, 1000, false)));
          }
          BurnDownDriver.run(
              context,
              "burndown.k" + keys + ".i" + instances,
              String.format(
                  "lanes burn-down, %,d keys, %d instance%s",
                  keys, instances, instances == 1 ? "" : "s"),
              () -> rigs.forEach(rig -> rig.startLanes(LaneOptions.defaults())),
              probe,
              o.laneRows());
        } finally {
          for (RelayerRig rig : rigs) {
            rig.close();
          }
        }
        db.execute("TRUNCATE " + OutboxRows.TABLE);
      }
    }
  }
}
