package dev.relayer.spring.boot.transport;

import dev.relayer.api.InvalidInputException;
import dev.relayer.spring.boot.RelayerAutoConfiguration;
import dev.relayer.transport.nats.NatsTransport;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.context.annotation.Bean;

/**
 * A {@link NatsTransport} bean from {@code relayer.nats.*} ({@link NatsTransportProperties}), when
 * {@code relayer-transport-nats} is on the class path, {@code relayer.nats.enabled=true}, {@code
 * relayer.enabled} is not {@code false} and the application has no {@code NatsTransport} bean of
 * its own. The {@link RelayerAutoConfiguration} registers it like any other {@code Transport} bean;
 * Spring closes it after the Relayer.
 */
@AutoConfiguration(before = RelayerAutoConfiguration.class)
@ConditionalOnClass(NatsTransport.class)
@ConditionalOnBooleanProperty(name = "relayer.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "relayer.nats.enabled")
@EnableConfigurationProperties(NatsTransportProperties.class)
public class NatsTransportAutoConfiguration {

  /** Created by Spring. */
  public NatsTransportAutoConfiguration() {}

  /**
   * The transport.
   *
   * @param properties the {@code relayer.nats.*} properties
   * @return the transport, not yet connected (it connects on its first batch)
   * @throws InvalidInputException naming each invalid {@code relayer.nats.*} property
   */
  @Bean
  @ConditionalOnMissingBean(NatsTransport.class)
  public NatsTransport relayerNatsTransport(NatsTransportProperties properties) {
    return PropertyProblems.named(
        "relayer.nats",
        () -> {
          NatsTransport.Builder builder = NatsTransport.builder();
          PropertyMapper map = PropertyMapper.get(); // skips unset (null) properties
          map.from(properties.url()).to(builder::url);
          map.from(properties.name()).to(builder::name);
          map.from(properties.maxBatchSize()).to(builder::maxBatchSize);
          map.from(properties.connectTimeout()).to(builder::connectTimeout);
          map.from(properties.reconnectWait()).to(builder::reconnectWait);
          map.from(properties.orderedBatches()).to(builder::orderedBatches);
          return builder.build();
        });
  }
}
