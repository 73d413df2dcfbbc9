package dev.relayer.bench.pipeline;

/**
 * A system under test in a burn-down: rows are already waiting in its table, and its sink reports
 * every delivery to a {@link DeliveryProbe}.
 */
public interface DrainingSystem {

  /** Starts delivering the waiting rows in the background and returns at once. */
  void startDraining() throws Exception;
}
