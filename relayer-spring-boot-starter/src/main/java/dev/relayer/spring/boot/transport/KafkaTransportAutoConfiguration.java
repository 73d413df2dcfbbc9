package dev.relayer.spring.boot.transport;

import dev.relayer.api.InvalidInputException;
import dev.relayer.spring.boot.RelayerAutoConfiguration;
import dev.relayer.transport.kafka.KafkaTransport;
import java.util.Collection;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link KafkaTransport} bean from {@code relayer.kafka.*} ({@link KafkaTransportProperties}),
 * when {@code relayer-transport-kafka} is on the class path, {@code relayer.kafka.enabled=true},
 * {@code relayer.enabled} is not {@code false} and the application has no {@code KafkaTransport}
 * bean of its own. Without {@code relayer.kafka.bootstrap-servers} the producer starts from Spring
 * Boot's producer settings ({@code spring.kafka.*}, from the application's {@code KafkaProperties}
 * bean) without their key and value serializers, which are the transport's. The {@link
 * RelayerAutoConfiguration} registers it like any other {@code Transport} bean; Spring closes it
 * (flushing the producer) after the Relayer.
 */
@AutoConfiguration(
    before = RelayerAutoConfiguration.class,
    afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass(KafkaTransport.class)
@ConditionalOnBooleanProperty(name = "relayer.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "relayer.kafka.enabled")
@EnableConfigurationProperties(KafkaTransportProperties.class)
public class KafkaTransportAutoConfiguration {

  private static final String PREFIX = "relayer.kafka";

  /** Created by Spring. */
  public KafkaTransportAutoConfiguration() {}

  /** With Spring Boot's Kafka support on the class path: reuses its producer settings. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(KafkaProperties.class)
  static class WithSpringKafka {

    @Bean
    @ConditionalOnMissingBean(KafkaTransport.class)
    KafkaTransport relayerKafkaTransport(
        KafkaTransportProperties properties, ObjectProvider<KafkaProperties> springKafka) {
      KafkaProperties spring = springKafka.getIfUnique();
      return transport(properties, spring == null ? null : spring.buildProducerProperties());
    }
  }

  /** Without Spring Boot's Kafka support: {@code relayer.kafka.*} only. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("org.springframework.boot.kafka.autoconfigure.KafkaProperties")
  static class WithoutSpringKafka {

    @Bean
    @ConditionalOnMissingBean(KafkaTransport.class)
    KafkaTransport relayerKafkaTransport(KafkaTransportProperties properties) {
      return transport(properties, null);
    }
  }

  /**
   * The transport: {@code springProducer} (unless {@code relayer.kafka.bootstrap-servers} is set)
   * without serializers, then {@code relayer.kafka.bootstrap-servers}, then {@code
   * relayer.kafka.properties.*}.
   *
   * @throws InvalidInputException naming each invalid {@code relayer.kafka.*} property
   */
  static KafkaTransport transport(
      KafkaTransportProperties properties, Map<String, Object> springProducer) {
    Properties config = new Properties();
    if (properties.bootstrapServers() != null) {
      config.put("bootstrap.servers", properties.bootstrapServers());
    } else if (springProducer != null) {
      springProducer.forEach((key, value) -> config.put(key, text(value)));
      // Spring Boot's defaults (StringSerializer for both); the transport sets its own.
      config.remove("key.serializer");
      config.remove("value.serializer");
    } else {
      throw new InvalidInputException(
          PREFIX
              + ".bootstrap-servers is required: the application has no Spring Boot Kafka"
              + " properties (spring.kafka.*) to take the producer settings from");
    }
    config.putAll(properties.properties());
    return PropertyProblems.named(
        PREFIX,
        () -> {
          KafkaTransport.Builder builder = KafkaTransport.builder().properties(config);
          PropertyMapper map = PropertyMapper.get(); // skips unset (null) properties
          map.from(properties.name()).to(builder::name);
          map.from(properties.maxBatchSize()).to(builder::maxBatchSize);
          map.from(properties.orderedBatches()).to(builder::orderedBatches);
          map.from(properties.closeTimeout()).to(builder::closeTimeout);
          return builder.build();
        });
  }

  /** A producer setting as the text Kafka parses: lists comma-separated, classes by name. */
  private static String text(Object value) {
    if (value instanceof Collection<?> values) {
      return values.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
    if (value instanceof Class<?> type) {
      return type.getName();
    }
    return String.valueOf(value);
  }
}
