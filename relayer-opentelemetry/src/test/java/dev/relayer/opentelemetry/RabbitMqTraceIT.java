package dev.relayer.opentelemetry;

import dev.relayer.testkit.transport.BrokerFixture;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;

/** The trace through a real RabbitMQ (AMQP headers). */
class RabbitMqTraceIT extends BrokerTraceContract {

  @Override
  BrokerFixture openBroker() throws Exception {
    return RabbitMqFixture.direct(false);
  }

  @Override
  String system() {
    return RabbitMqTransport.DEFAULT_NAME;
  }
}
