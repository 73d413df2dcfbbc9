package dev.relayer.spring.boot.transport;

import com.rabbitmq.client.ConnectionFactory;
import dev.relayer.api.InvalidInputException;
import dev.relayer.spring.boot.RelayerAutoConfiguration;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import org.springframework.amqp.rabbit.connection.AbstractConnectionFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link RabbitMqTransport} bean from {@code relayer.rabbitmq.*} ({@link
 * RabbitMqTransportProperties}), when {@code relayer-transport-rabbitmq} is on the class path,
 * {@code relayer.rabbitmq.enabled=true}, {@code relayer.enabled} is not {@code false} and the
 * application has no {@code RabbitMqTransport} bean of its own. Without {@code
 * relayer.rabbitmq.uri} it connects as Spring Boot's RabbitMQ support does: it copies the client
 * factory of the application's Spring AMQP connection factory ({@code spring.rabbitmq.*}). The
 * {@link RelayerAutoConfiguration} registers it like any other {@code Transport} bean; Spring
 * closes it after the Relayer.
 */
@AutoConfiguration(
    before = RelayerAutoConfiguration.class,
    afterName = "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration")
@ConditionalOnClass(RabbitMqTransport.class)
@ConditionalOnBooleanProperty(name = "relayer.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "relayer.rabbitmq.enabled")
@EnableConfigurationProperties(RabbitMqTransportProperties.class)
public class RabbitMqTransportAutoConfiguration {

  private static final String PREFIX = "relayer.rabbitmq";

  /** Created by Spring. */
  public RabbitMqTransportAutoConfiguration() {}

  /** With Spring AMQP on the class path: reuses the application's connection settings. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(AbstractConnectionFactory.class)
  static class WithSpringAmqp {

    @Bean
    @ConditionalOnMissingBean(RabbitMqTransport.class)
    RabbitMqTransport relayerRabbitMqTransport(
        RabbitMqTransportProperties properties,
        ObjectProvider<AbstractConnectionFactory> springConnectionFactory) {
      AbstractConnectionFactory spring = springConnectionFactory.getIfUnique();
      return transport(properties, spring == null ? null : spring.getRabbitConnectionFactory());
    }
  }

  /** Without Spring AMQP: {@code relayer.rabbitmq.uri} only. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("org.springframework.amqp.rabbit.connection.AbstractConnectionFactory")
  static class WithoutSpringAmqp {

    @Bean
    @ConditionalOnMissingBean(RabbitMqTransport.class)
    RabbitMqTransport relayerRabbitMqTransport(RabbitMqTransportProperties properties) {
      return transport(properties, null);
    }
  }

  /**
   * The transport: to {@code relayer.rabbitmq.uri} when set, else through a copy of {@code
   * springFactory}.
   *
   * @throws InvalidInputException naming each invalid {@code relayer.rabbitmq.*} property, or
   *     {@code relayer.rabbitmq.uri} when there is neither a URI nor a Spring connection factory
   */
  static RabbitMqTransport transport(
      RabbitMqTransportProperties properties, ConnectionFactory springFactory) {
    if (properties.uri() == null && springFactory == null) {
      throw new InvalidInputException(
          PREFIX
              + ".uri is required: the application has no Spring AMQP connection factory to take"
              + " spring.rabbitmq.* from");
    }
    return PropertyProblems.named(
        PREFIX,
        () -> {
          RabbitMqTransport.Builder builder = RabbitMqTransport.builder();
          if (properties.uri() != null) {
            builder.uri(properties.uri());
          } else {
            builder.connectionFactory(springFactory);
          }
          PropertyMapper map = PropertyMapper.get(); // skips unset (null) properties
          map.from(properties.name()).to(builder::name);
          map.from(properties.maxBatchSize()).to(builder::maxBatchSize);
          map.from(properties.connectTimeout()).to(builder::connectTimeout);
          map.from(properties.recoveryInterval()).to(builder::recoveryInterval);
          map.from(properties.orderedBatches()).to(builder::orderedBatches);
          return builder.build();
        });
  }
}
