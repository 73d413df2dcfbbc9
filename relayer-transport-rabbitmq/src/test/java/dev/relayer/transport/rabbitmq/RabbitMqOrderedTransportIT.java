package dev.relayer.transport.rabbitmq;

/**
 * The same contract and RabbitMQ tests with {@code orderedBatches(true)}: the transport declares
 * batch order, so the suite checks that a batch arrives in order and stops at its first failure.
 */
class RabbitMqOrderedTransportIT extends RabbitMqTransportIT {

  @Override
  protected boolean orderedBatches() {
    return true;
  }
}
