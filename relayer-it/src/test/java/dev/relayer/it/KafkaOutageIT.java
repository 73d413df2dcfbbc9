package dev.relayer.it;

import dev.relayer.testkit.transport.RestartableBrokerFixture;
import dev.relayer.transport.kafka.KafkaBrokerProcess;
import dev.relayer.transport.kafka.KafkaFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A Kafka outage: a private single-node KRaft broker that the test stops (its process ends) and
 * starts again on the same port and log directory.
 */
class KafkaOutageIT extends BrokerOutageContract {

  private KafkaBrokerProcess process;
  private KafkaFixture broker;

  @BeforeAll
  void startBroker() throws Exception {
    process = KafkaBrokerProcess.start();
    broker = KafkaFixture.privateBroker(process);
  }

  @AfterAll
  void stopBroker() throws Exception {
    try {
      if (broker != null) {
        broker.close();
      }
    } finally {
      if (process != null) {
        process.close();
      }
    }
  }

  @Override
  protected RestartableBrokerFixture broker() {
    return broker;
  }
}
