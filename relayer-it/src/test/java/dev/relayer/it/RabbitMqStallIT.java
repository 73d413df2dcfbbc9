package dev.relayer.it;

import dev.relayer.testkit.transport.RestartableBrokerFixture;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A stalled RabbitMQ: the connection stays open but no byte crosses the proxy in front of the
 * broker, so no publish is confirmed and every send times out, until the network heals. Timeouts
 * while every send fails are an outage, not poison.
 */
class RabbitMqStallIT extends BrokerOutageContract {

  private RabbitMqFixture broker;

  @BeforeAll
  void connect() throws Exception {
    broker = RabbitMqFixture.proxied(false);
  }

  @AfterAll
  void disconnect() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @Override
  protected RestartableBrokerFixture broker() {
    return broker;
  }

  @Override
  protected void breakBroker() {
    broker.stall();
  }

  @Override
  protected void healBroker() {
    broker.heal();
  }
}
