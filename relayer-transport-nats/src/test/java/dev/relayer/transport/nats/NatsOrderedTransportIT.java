package dev.relayer.transport.nats;

/**
 * The same contract and NATS tests with {@code orderedBatches(true)}: the transport declares batch
 * order, so the suite checks that a batch arrives in order and stops at its first failure.
 */
class NatsOrderedTransportIT extends NatsTransportIT {

  @Override
  protected boolean orderedBatches() {
    return true;
  }
}
