package dev.relayer.spring.boot;

import dev.relayer.dispatch.Relayer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;

/**
 * The {@code relayer} health indicator ({@link RelayerHealthIndicator}), when Spring Boot's health
 * support ({@code spring-boot-health}, brought by {@code spring-boot-starter-actuator}) is on the
 * class path, a {@link Relayer} bean exists and {@code management.health.relayer.enabled} is not
 * {@code false}. Thresholds come from {@code relayer.health.*}.
 */
@AutoConfiguration(after = RelayerAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(Relayer.class)
@ConditionalOnEnabledHealthIndicator("relayer")
public class RelayerHealthContributorAutoConfiguration {

  /** Created by Spring. */
  public RelayerHealthContributorAutoConfiguration() {}

  /**
   * The indicator, registered under the name {@code relayer}.
   *
   * @param relayer the Relayer whose {@link Relayer#health()} it reports
   * @param properties where {@code relayer.health.degraded-status} is read
   * @return the indicator
   */
  @Bean
  @ConditionalOnMissingBean(name = "relayerHealthIndicator")
  public RelayerHealthIndicator relayerHealthIndicator(
      Relayer relayer, RelayerProperties properties) {
    String code = properties.health().degradedStatus();
    return new RelayerHealthIndicator(
        relayer,
        code.equalsIgnoreCase(RelayerHealthIndicator.DEGRADED.getCode())
            ? RelayerHealthIndicator.DEGRADED
            : new Status(code.strip().toUpperCase(java.util.Locale.ROOT).replace('-', '_')));
  }
}
