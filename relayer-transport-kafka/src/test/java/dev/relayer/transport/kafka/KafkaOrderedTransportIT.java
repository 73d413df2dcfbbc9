package dev.relayer.transport.kafka;

/**
 * The same contract and Kafka tests with {@code orderedBatches(true)}: the transport declares batch
 * order, so the suite checks that a batch arrives in order and stops at its first failure.
 */
class KafkaOrderedTransportIT extends KafkaTransportIT {

  @Override
  protected boolean orderedBatches() {
    return true;
  }
}
