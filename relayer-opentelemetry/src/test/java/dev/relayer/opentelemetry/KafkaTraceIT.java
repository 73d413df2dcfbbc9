package dev.relayer.opentelemetry;

import dev.relayer.testkit.transport.BrokerFixture;
import dev.relayer.transport.kafka.KafkaFixture;
import dev.relayer.transport.kafka.KafkaTransport;

/**
 * The trace through a real Kafka (record headers): the cluster named by {@value
 * KafkaFixture#BOOTSTRAP_VARIABLE}, else a private single-node KRaft broker started as a child JVM
 * for this class and stopped after it.
 */
class KafkaTraceIT extends BrokerTraceContract {

  @Override
  BrokerFixture openBroker() throws Exception {
    return KafkaFixture.externalOrOwnBroker();
  }

  @Override
  String system() {
    return KafkaTransport.DEFAULT_NAME;
  }
}
