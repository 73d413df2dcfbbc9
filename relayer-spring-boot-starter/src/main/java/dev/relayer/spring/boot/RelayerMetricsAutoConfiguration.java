package dev.relayer.spring.boot;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.Relayer;
import dev.relayer.micrometer.RelayerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Binds the {@link Relayer} bean's meters ({@link RelayerMetrics}) to the application's {@link
 * MeterRegistry}, when {@code relayer-micrometer} is on the class path, both beans exist and {@code
 * relayer.metrics.enabled} is not {@code false}; the gauges are refreshed every {@code
 * relayer.metrics.gauge-refresh} while the context runs ({@link RelayerMetricsLifecycle}). An
 * application that defines its own {@code RelayerMetrics} bean (for a destination tag, say) keeps
 * it, and the starter still refreshes its gauges.
 */
@AutoConfiguration(
    after = RelayerAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@ConditionalOnClass({RelayerMetrics.class, MeterRegistry.class})
@ConditionalOnBean({Relayer.class, MeterRegistry.class})
@ConditionalOnProperty(
    prefix = "relayer.metrics",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(RelayerMetricsProperties.class)
public class RelayerMetricsAutoConfiguration {

  /** Created by Spring. */
  public RelayerMetricsAutoConfiguration() {}

  /**
   * The Relayer's meters, registered on {@code registry} when the bean is created; closed (the
   * meters removed) when the context closes.
   *
   * @param relayer the Relayer
   * @param registry the application's registry
   * @param properties the {@code relayer.metrics.*} properties
   * @return the bound meters, gauges not yet refreshed
   * @throws InvalidInputException naming each invalid {@code relayer.metrics.*} property
   */
  @Bean
  @ConditionalOnMissingBean
  public RelayerMetrics relayerMetrics(
      Relayer relayer, MeterRegistry registry, RelayerMetricsProperties properties) {
    List<String> problems = properties.problems();
    if (!problems.isEmpty()) {
      List<String> invalid = new ArrayList<>();
      invalid.add("invalid relayer.metrics.* properties");
      invalid.addAll(problems);
      throw new InvalidInputException(invalid);
    }
    RelayerMetrics.Builder builder =
        RelayerMetrics.builder(relayer, registry).gaugeRefresh(properties.gaugeRefresh());
    if (properties.storeTag() != null) {
      builder.storeTag(properties.storeTag());
    }
    return builder.build();
  }

  /**
   * Refreshes the gauges while the context runs.
   *
   * @param metrics the Relayer's meters
   * @return the lifecycle
   */
  @Bean
  @ConditionalOnMissingBean
  public RelayerMetricsLifecycle relayerMetricsLifecycle(RelayerMetrics metrics) {
    return new RelayerMetricsLifecycle(metrics);
  }
}
