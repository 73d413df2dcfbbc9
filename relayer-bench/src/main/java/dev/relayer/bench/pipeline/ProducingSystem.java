package dev.relayer.bench.pipeline;

/**
 * A system under test in a steady-state measurement: it is already delivering in the background,
 * and its sink reports every delivery to a {@link DeliveryProbe}.
 */
public interface ProducingSystem {

  /**
   * Runs one application transaction that enqueues one message carrying {@code seq} and commits it;
   * reports the commit with {@link DeliveryProbe#committed(long)} as soon as the commit is known
   * (before the system's own after-commit hand-off where the system allows it). Called concurrently
   * from several producer threads.
   */
  void produce(long seq) throws Exception;
}
