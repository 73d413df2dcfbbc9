package dev.relayer.it;

import dev.relayer.testkit.transport.RestartableBrokerFixture;
import dev.relayer.transport.nats.NatsFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A NATS JetStream outage with the default options for ten minutes (profile outage-soak): the
 * server of {@code RELAYER_NATS_URL} behind a local TCP proxy that the test cuts, so that every
 * connection is refused and open ones drop, and then restores.
 */
class NatsOutageSoakIT extends BrokerOutageContract {

  protected NatsFixture broker;

  @BeforeAll
  void connect() throws Exception {
    broker = NatsFixture.proxied();
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
  protected OutageRun run() {
    return OutageRun.soak();
  }
}
