package dev.relayer.spring.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code relayer.actuator.*} properties.
 *
 * @param operations the operator's actions on the {@code relayer} endpoint
 *     (relayer.actuator.operations.*)
 */
@ConfigurationProperties("relayer.actuator")
public record RelayerActuatorProperties(@DefaultValue Operations operations) {

  /**
   * The operator's actions.
   *
   * @param enabled whether the {@code relayer} endpoint exposes the operator's actions on parked
   *     keys as write operations ({@link RelayerOperationsEndpoint}); default false: read-only
   */
  public record Operations(@DefaultValue("false") boolean enabled) {}
}
