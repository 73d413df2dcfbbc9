package dev.relayer.it;

import dev.relayer.testkit.transport.RestartableBrokerFixture;
import dev.relayer.transport.kafka.KafkaBrokerProcess;
import dev.relayer.transport.kafka.KafkaFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A Kafka outage with the default options for ten minutes (profile outage-soak): a private KRaft
 * broker whose clients are sent through a local TCP proxy (its advertised listener), which the test
 * cuts, so that every connection is refused and open ones drop, and then restores.
 */
class KafkaOutageSoakIT extends BrokerOutageContract {

  private KafkaBrokerProcess process;
  protected KafkaFixture broker;

  @BeforeAll
  void startBroker() throws Exception {
    process = KafkaBrokerProcess.startBehindProxy();
    broker = KafkaFixture.proxied(process);
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

  @Override
  protected OutageRun run() {
    return OutageRun.soak();
  }
}
