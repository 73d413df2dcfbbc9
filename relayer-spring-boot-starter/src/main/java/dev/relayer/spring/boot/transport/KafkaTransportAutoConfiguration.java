package dev.relayer.spring.boot.transport;

import dev.relayer.api.InvalidInputException;
import dev.relayer.spring.boot.RelayerAutoConfiguration;
import dev.relayer.transport.kafka.KafkaTransport;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.kafka.autoconfigure.SslBundleSslEngineFactory;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link KafkaTransport} bean from {@code relayer.kafka.*} ({@link KafkaTransportProperties}),
 * when {@code relayer-transport-kafka} is on the class path, {@code relayer.kafka.enabled=true},
 * {@code relayer.enabled} is not {@code false} and the application has no {@code KafkaTransport}
 * bean of its own. Without {@code relayer.kafka.bootstrap-servers} the producer is configured as
 * Spring Boot configures its own: its producer settings ({@code spring.kafka.*}, from the
 * application's {@code KafkaProperties} bean) without their key and value serializers, which are
 * the transport's, then the bootstrap servers, security protocol and SSL bundle of its {@link
 * KafkaConnectionDetails} ({@code spring.kafka.ssl.bundle} is applied there, and only there). With
 * it, {@code relayer.kafka.ssl.bundle} names the SSL bundle. The {@link RelayerAutoConfiguration}
 * registers it like any other {@code Transport} bean; Spring closes it (flushing the producer)
 * after the Relayer.
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
        KafkaTransportProperties properties,
        ObjectProvider<KafkaProperties> springKafka,
        ObjectProvider<KafkaConnectionDetails> springConnection,
        ObjectProvider<SslBundles> sslBundles) {
      KafkaProperties spring = springKafka.getIfUnique();
      Map<String, Object> producer = null;
      if (spring != null && properties.bootstrapServers() == null) {
        producer = spring.buildProducerProperties();
        KafkaConnectionDetails connection = springConnection.getIfUnique();
        if (connection != null) {
          apply(producer, connection.getProducer());
        }
      }
      SslBundle bundle = sslBundle(properties, sslBundles.getIfAvailable());
      return transport(properties, producer, bundle == null ? Map.of() : sslBundleSettings(bundle));
    }

    /**
     * What Spring Boot's own producer factory takes from the connection details: the bootstrap
     * servers, the security protocol when there is one, and the SSL bundle.
     */
    private static void apply(
        Map<String, Object> producer, KafkaConnectionDetails.Configuration connection) {
      producer.put("bootstrap.servers", connection.getBootstrapServers());
      String protocol = connection.getSecurityProtocol();
      if (protocol != null && !protocol.isEmpty()) {
        producer.put("security.protocol", protocol);
      }
      SslBundle bundle = connection.getSslBundle();
      if (bundle != null) {
        producer.putAll(sslBundleSettings(bundle));
      }
    }

    /** {@code relayer.kafka.ssl.bundle}, looked up in {@code bundles}, or {@code null}. */
    private static @Nullable SslBundle sslBundle(
        KafkaTransportProperties properties, @Nullable SslBundles bundles) {
      String name = properties.ssl() == null ? null : properties.ssl().bundle();
      if (name == null || name.isBlank()) {
        return null;
      }
      if (bundles == null) {
        throw new InvalidInputException(
            PREFIX
                + ".ssl.bundle is '"
                + name
                + "' but the application has no SSL bundles (spring.ssl.bundle.*)");
      }
      try {
        return bundles.getBundle(name);
      } catch (NoSuchSslBundleException e) {
        throw new InvalidInputException(
            PREFIX + ".ssl.bundle: no SSL bundle '" + name + "' in spring.ssl.bundle.*");
      }
    }

    /**
     * The producer settings that make it use {@code bundle}, as Spring Boot's own producer does: an
     * engine factory that builds the TLS engine from the bundle, and the bundle itself.
     */
    private static Map<String, Object> sslBundleSettings(SslBundle bundle) {
      Map<String, Object> settings = new HashMap<>();
      settings.put("ssl.engine.factory.class", SslBundleSslEngineFactory.class);
      settings.put(SslBundle.class.getName(), bundle);
      return settings;
    }
  }

  /** Without Spring Boot's Kafka support: {@code relayer.kafka.*} only. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("org.springframework.boot.kafka.autoconfigure.KafkaProperties")
  static class WithoutSpringKafka {

    @Bean
    @ConditionalOnMissingBean(KafkaTransport.class)
    KafkaTransport relayerKafkaTransport(KafkaTransportProperties properties) {
      if (properties.ssl() != null && properties.ssl().bundle() != null) {
        throw new InvalidInputException(
            PREFIX
                + ".ssl.bundle needs Spring Boot's Kafka support (spring-boot-kafka) on the class"
                + " path");
      }
      return transport(properties, null, Map.of());
    }
  }

  /**
   * The transport: {@code relayer.kafka.bootstrap-servers} when set, else {@code springProducer}
   * without serializers; then the settings of {@code relayer.kafka.ssl.bundle}, {@code sslSettings}
   * (with {@code security.protocol=SSL} unless a protocol is set already); then {@code
   * relayer.kafka.properties.*}.
   *
   * @throws InvalidInputException naming each invalid {@code relayer.kafka.*} property
   */
  static KafkaTransport transport(
      KafkaTransportProperties properties,
      @Nullable Map<String, Object> springProducer,
      Map<String, Object> sslSettings) {
    Properties config = new Properties();
    if (properties.bootstrapServers() != null) {
      config.put("bootstrap.servers", properties.bootstrapServers());
    } else if (springProducer != null) {
      springProducer.forEach((key, value) -> config.put(key, setting(value)));
      // Spring Boot's defaults (StringSerializer for both); the transport sets its own.
      config.remove("key.serializer");
      config.remove("value.serializer");
    } else {
      throw new InvalidInputException(
          PREFIX
              + ".bootstrap-servers is required: the application has no Spring Boot Kafka"
              + " properties (spring.kafka.*) to take the producer settings from");
    }
    if (!sslSettings.isEmpty()) {
      config.putAll(sslSettings);
      config.putIfAbsent("security.protocol", "SSL");
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

  /**
   * A producer setting as Kafka takes it: lists comma-separated, numbers and the like as text;
   * classes and any other object (the SSL bundle its engine factory reads) as they are.
   */
  private static Object setting(Object value) {
    if (value instanceof Collection<?> values) {
      return values.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
    if (value instanceof CharSequence
        || value instanceof Number
        || value instanceof Boolean
        || value instanceof Enum<?>) {
      return String.valueOf(value);
    }
    return value;
  }
}
