package dev.relayer.spring.boot;

import dev.relayer.micrometer.RelayerMetrics;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the gauges' refresh ({@link RelayerMetrics#start()}) with the context, after the Relayer
 * (phase {@link RelayerLifecycle#PHASE} + 1), so that the first refresh reads a checked schema. The
 * refresh stops when the context closes the {@code RelayerMetrics} bean.
 */
public final class RelayerMetricsLifecycle implements SmartLifecycle {

  private final RelayerMetrics metrics;
  private volatile boolean running;

  /** A lifecycle for {@code metrics}. */
  public RelayerMetricsLifecycle(RelayerMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void start() {
    metrics.start();
    running = true;
  }

  @Override
  public void stop() {
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return RelayerLifecycle.PHASE + 1;
  }
}
