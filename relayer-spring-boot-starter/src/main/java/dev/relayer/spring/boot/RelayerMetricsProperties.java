package dev.relayer.spring.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code relayer.metrics.*} properties, read when {@code relayer-micrometer} is on the class
 * path and the application has a {@code MeterRegistry}.
 *
 * @param enabled whether the Relayer's meters are bound to the registry; default true
 * @param gaugeRefresh time between two reads of the gauges from the database, the least (after a
 *     slow read the next waits twenty times that read); positive, default 30 s
 * @param storeTag the {@code store} tag's value; default the store's {@code schema.prefix}
 */
@ConfigurationProperties("relayer.metrics")
public record RelayerMetricsProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("30s") Duration gaugeRefresh,
    @Nullable String storeTag) {

  /** What is wrong with these properties, one line each, named by property; empty when valid. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (gaugeRefresh == null || gaugeRefresh.isNegative() || gaugeRefresh.isZero()) {
      problems.add("relayer.metrics.gauge-refresh must be positive, was " + gaugeRefresh);
    }
    if (storeTag != null && storeTag.isBlank()) {
      problems.add("relayer.metrics.store-tag must not be blank");
    }
    return problems;
  }
}
