package dev.relayer.opentelemetry;

import dev.relayer.testkit.transport.BrokerFixture;
import dev.relayer.transport.nats.NatsFixture;
import dev.relayer.transport.nats.NatsTransport;

/** The trace through a real NATS JetStream (message headers). */
class NatsTraceIT extends BrokerTraceContract {

  @Override
  BrokerFixture openBroker() throws Exception {
    return NatsFixture.shared();
  }

  @Override
  String system() {
    return NatsTransport.DEFAULT_NAME;
  }
}
