package dev.relayer.spring.boot;

import dev.relayer.dispatch.Relayer;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@code relayer} actuator endpoint, when the actuator ({@code spring-boot-actuator}, brought
 * by {@code spring-boot-starter-actuator}) is on the class path, a {@link Relayer} bean exists and
 * the endpoint is available (exposed and not turned off with {@code
 * management.endpoint.relayer.enabled=false}): {@link RelayerEndpoint}, read-only, or {@link
 * RelayerOperationsEndpoint} with {@code relayer.actuator.operations.enabled=true}. Backs off when
 * the application has a {@code RelayerEndpoint} bean.
 */
@AutoConfiguration(after = RelayerAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(Relayer.class)
@ConditionalOnAvailableEndpoint(RelayerEndpoint.class)
@EnableConfigurationProperties(RelayerActuatorProperties.class)
public class RelayerEndpointAutoConfiguration {

  /** Created by Spring. */
  public RelayerEndpointAutoConfiguration() {}

  /**
   * The read-only endpoint.
   *
   * @param relayer the Relayer it reports
   * @return the endpoint
   */
  @Bean
  @ConditionalOnMissingBean(RelayerEndpoint.class)
  @ConditionalOnBooleanProperty(
      name = "relayer.actuator.operations.enabled",
      havingValue = false,
      matchIfMissing = true)
  public RelayerEndpoint relayerEndpoint(Relayer relayer) {
    return new RelayerEndpoint(relayer);
  }

  /**
   * The endpoint with the operator's actions.
   *
   * @param relayer the Relayer it reports and acts on
   * @return the endpoint
   */
  @Bean
  @ConditionalOnMissingBean(RelayerEndpoint.class)
  @ConditionalOnBooleanProperty("relayer.actuator.operations.enabled")
  public RelayerOperationsEndpoint relayerOperationsEndpoint(Relayer relayer) {
    return new RelayerOperationsEndpoint(relayer);
  }
}
