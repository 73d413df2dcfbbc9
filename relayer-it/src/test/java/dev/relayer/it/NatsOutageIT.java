package dev.relayer.it;

import dev.relayer.testkit.transport.RestartableBrokerFixture;
import dev.relayer.transport.nats.NatsFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A NATS JetStream outage: a private {@code nats-server -js} that the test stops (its process ends)
 * and starts again on the same port and store.
 */
class NatsOutageIT extends BrokerOutageContract {

  private NatsFixture broker;

  @BeforeAll
  void startServer() throws Exception {
    broker = NatsFixture.privateServer();
  }

  @AfterAll
  void stopServer() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @Override
  protected RestartableBrokerFixture broker() {
    return broker;
  }
}
