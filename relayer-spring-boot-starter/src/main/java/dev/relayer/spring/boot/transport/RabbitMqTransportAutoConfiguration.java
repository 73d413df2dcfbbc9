package dev.relayer.spring.boot.transport;

import com.rabbitmq.client.ConnectionFactory;
import dev.relayer.api.InvalidInputException;
import dev.relayer.spring.boot.RelayerAutoConfiguration;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.rabbit.connection.AbstractConnectionFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.amqp.autoconfigure.RabbitConnectionDetails;
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
 * factory of the application's Spring AMQP connection factory ({@code spring.rabbitmq.*}:
 * credentials, virtual host, TLS with {@code spring.rabbitmq.ssl.*} or an SSL bundle) and connects
 * to the addresses of Spring Boot's {@link RabbitConnectionDetails} ({@code
 * spring.rabbitmq.addresses}, every one of them, which the client factory alone does not hold).
 * {@code relayer.rabbitmq.addresses} replaces the addresses either way. The {@link
 * RelayerAutoConfiguration} registers it like any other {@code Transport} bean; Spring closes it
 * after the Relayer.
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

  /**
   * With Spring Boot's RabbitMQ support: reuses the application's connection settings, and takes
   * the addresses from Spring Boot's connection details.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({AbstractConnectionFactory.class, RabbitConnectionDetails.class})
  static class WithSpringBootAmqp {

    @Bean
    @ConditionalOnMissingBean(RabbitMqTransport.class)
    RabbitMqTransport relayerRabbitMqTransport(
        RabbitMqTransportProperties properties,
        ObjectProvider<AbstractConnectionFactory> springConnectionFactory,
        ObjectProvider<RabbitConnectionDetails> springConnectionDetails) {
      AbstractConnectionFactory spring = springConnectionFactory.getIfUnique();
      if (spring == null) {
        return transport(properties, null, List.of());
      }
      ConnectionFactory client = spring.getRabbitConnectionFactory();
      return transport(
          properties, client, addresses(client, springConnectionDetails.getIfUnique()));
    }

    /**
     * Every address of {@code details}, as {@code host:port}, when {@code client} was made from
     * them (Spring Boot gives the client factory the first address); none otherwise, for example
     * when the application made its own connection factory for another broker.
     */
    static List<String> addresses(
        ConnectionFactory client, @Nullable RabbitConnectionDetails details) {
      if (details == null || details.getAddresses().isEmpty()) {
        return List.of();
      }
      RabbitConnectionDetails.Address first = details.getFirstAddress();
      if (!first.host().equals(client.getHost()) || first.port() != client.getPort()) {
        return List.of();
      }
      return details.getAddresses().stream()
          .map(
              address ->
                  (address.host().indexOf(':') >= 0 ? "[" + address.host() + "]" : address.host())
                      + ":"
                      + address.port())
          .toList();
    }
  }

  /**
   * With Spring AMQP but not Spring Boot's RabbitMQ support: reuses the application's Spring AMQP
   * connection factory's client factory, whose host is the only address.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(AbstractConnectionFactory.class)
  @ConditionalOnMissingClass("org.springframework.boot.amqp.autoconfigure.RabbitConnectionDetails")
  static class WithSpringAmqp {

    @Bean
    @ConditionalOnMissingBean(RabbitMqTransport.class)
    RabbitMqTransport relayerRabbitMqTransport(
        RabbitMqTransportProperties properties,
        ObjectProvider<AbstractConnectionFactory> springConnectionFactory) {
      AbstractConnectionFactory spring = springConnectionFactory.getIfUnique();
      return transport(
          properties, spring == null ? null : spring.getRabbitConnectionFactory(), List.of());
    }
  }

  /** Without Spring AMQP: {@code relayer.rabbitmq.uri} only. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("org.springframework.amqp.rabbit.connection.AbstractConnectionFactory")
  static class WithoutSpringAmqp {

    @Bean
    @ConditionalOnMissingBean(RabbitMqTransport.class)
    RabbitMqTransport relayerRabbitMqTransport(RabbitMqTransportProperties properties) {
      return transport(properties, null, List.of());
    }
  }

  /**
   * The transport: to {@code relayer.rabbitmq.uri} when set, else through a copy of {@code
   * springFactory} to {@code springAddresses} (when there are any, else to the factory's host);
   * {@code relayer.rabbitmq.addresses}, when set, replaces the addresses in both cases.
   *
   * @throws InvalidInputException naming each invalid {@code relayer.rabbitmq.*} property, or
   *     {@code relayer.rabbitmq.uri} when there is neither a URI nor a Spring connection factory
   */
  static RabbitMqTransport transport(
      RabbitMqTransportProperties properties,
      @Nullable ConnectionFactory springFactory,
      List<String> springAddresses) {
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
          PropertyMapper map = PropertyMapper.get(); // skips unset (null) properties
          if (properties.uri() != null) {
            builder.uri(properties.uri());
          } else if (springFactory != null) { // always, as checked above
            builder.connectionFactory(springFactory);
            if (!springAddresses.isEmpty()) {
              builder.addresses(springAddresses);
            }
          }
          map.from(properties.addresses()).to(builder::addresses);
          map.from(properties.name()).to(builder::name);
          map.from(properties.maxBatchSize()).to(builder::maxBatchSize);
          map.from(properties.connectTimeout()).to(builder::connectTimeout);
          map.from(properties.recoveryInterval()).to(builder::recoveryInterval);
          map.from(properties.orderedBatches()).to(builder::orderedBatches);
          return builder.build();
        });
  }
}
