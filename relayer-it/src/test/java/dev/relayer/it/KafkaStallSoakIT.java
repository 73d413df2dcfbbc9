package dev.relayer.it;

/**
 * A stalled Kafka with the default options for ten minutes (profile outage-soak): the connections
 * stay open but no byte crosses the proxy in front of the broker, until the network heals.
 */
class KafkaStallSoakIT extends KafkaOutageSoakIT {

  @Override
  protected void breakBroker() {
    broker.stall();
  }

  @Override
  protected void healBroker() {
    broker.heal();
  }
}
