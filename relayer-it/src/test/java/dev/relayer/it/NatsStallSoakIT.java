package dev.relayer.it;

/**
 * A stalled NATS with the default options for ten minutes (profile outage-soak): the connections
 * stay open but no byte crosses the proxy, so no publish is acknowledged, until the network heals.
 */
class NatsStallSoakIT extends NatsOutageSoakIT {

  @Override
  protected void breakBroker() {
    broker.stall();
  }

  @Override
  protected void healBroker() {
    broker.heal();
  }
}
