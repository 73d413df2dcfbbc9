package dev.relayer.it;

import dev.relayer.testkit.transport.RestartableBrokerFixture;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A RabbitMQ outage: the broker of {@code RELAYER_RABBITMQ_URI} behind a local TCP proxy that the
 * test cuts, so that every connection is refused and open ones drop, and then restores.
 */
class RabbitMqOutageIT extends BrokerOutageContract {

  protected RabbitMqFixture broker;

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
}
