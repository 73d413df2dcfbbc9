package dev.relayer.examples.orders;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.relayer.api.spi.Transport;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The RabbitMQ side: the {@link Transport} Relayer sends through (registered by the starter as a
 * shared transport: Spring closes it after Relayer), and the consumer's own connection.
 *
 * <p>{@code orders.rabbitmq.uri} defaults to the environment variable {@code RELAYER_RABBITMQ_URI},
 * else a local broker with the default user.
 */
@Configuration(proxyBeanMethods = false)
class RabbitMq {

  /** The transport's name, which each enqueued message names. */
  static final String TRANSPORT = "rabbitmq";

  @Bean(destroyMethod = "close")
  Transport rabbitTransport(@Value("${orders.rabbitmq.uri}") String uri) {
    return RabbitMqTransport.builder().name(TRANSPORT).uri(uri).build();
  }

  @Bean(destroyMethod = "close")
  Connection consumerConnection(@Value("${orders.rabbitmq.uri}") String uri) throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(uri);
    if (factory.getVirtualHost().isEmpty()) {
      factory.setVirtualHost("/"); // amqp://host:5672/ names the default vhost, as in the transport
    }
    return factory.newConnection("orders-service-shipping");
  }
}
