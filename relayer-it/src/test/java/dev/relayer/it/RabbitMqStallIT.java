package dev.relayer.it;

/**
 * A stalled RabbitMQ: the connections stay open but no byte crosses the proxy in front of the
 * broker, so no publish is confirmed and every send times out, until the network heals. Timeouts
 * while every send fails are an outage, not poison.
 */
class RabbitMqStallIT extends RabbitMqOutageIT {

  @Override
  protected void breakBroker() {
    broker.stall();
  }

  @Override
  protected void healBroker() {
    broker.heal();
  }
}
