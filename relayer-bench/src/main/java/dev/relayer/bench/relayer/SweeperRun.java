package dev.relayer.bench.relayer;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.pipeline.DrainingSystem;
import dev.relayer.dispatch.MaintenanceOptions;
import java.time.Duration;

/**
 * Burn-down by the sweeper alone: maintenance with recovery delay 0 (every waiting row is its to
 * send), {@code batchSize} = {@code --sweep-batch} and a 1 ms sweep interval (the smallest; the
 * default 5 s is a recovery pace, not a throughput setting). Direct dispatch is not started.
 */
final class SweeperRun implements DrainingSystem {

  /** The sweep interval of a sweeper burn-down. */
  static final Duration INTERVAL = Duration.ofMillis(1);

  private final RelayerRig rig;
  private final int batchSize;

  SweeperRun(RelayerRig rig, BenchOptions options) {
    this.rig = rig;
    this.batchSize = options.sweepBatch();
  }

  @Override
  public void startDraining() {
    rig.startMaintenance(
        MaintenanceOptions.builder()
            .batchSize(batchSize)
            .recoveryDelay(Duration.ZERO)
            .sweepInterval(INTERVAL)
            .build());
  }
}
