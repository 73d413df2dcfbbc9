package dev.relayer.bench.relayer;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.pipeline.DrainingSystem;
import dev.relayer.dispatch.MaintenanceOptions;
import java.time.Duration;

/**
 * Burn-down by the sweeper alone: maintenance with recovery delay 0 (every waiting row is its to
 * send), {@code batchSize} = {@code --sweep-batch} and the default sweep interval (a full, fully
 * sent pass is followed at once by the next, so the interval does not pace a burn-down). Direct
 * dispatch is not started.
 */
final class SweeperRun implements DrainingSystem {

  private final RelayerRig rig;
  private final int batchSize;

  SweeperRun(RelayerRig rig, BenchOptions options) {
    this.rig = rig;
    this.batchSize = options.sweepBatch();
  }

  @Override
  public void startDraining() {
    rig.startMaintenance(
        MaintenanceOptions.builder().batchSize(batchSize).recoveryDelay(Duration.ZERO).build());
  }
}
