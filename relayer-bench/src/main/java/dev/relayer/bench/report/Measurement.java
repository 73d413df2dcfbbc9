package dev.relayer.bench.report;

import java.util.Objects;

/**
 * One figure of one repetition.
 *
 * @param key full key, {@code scenario.metric}
 * @param label what was measured, for the report
 * @param unit unit of {@code value}, e.g. {@code msgs/s} or {@code ms}
 * @param value the figure
 */
public record Measurement(String key, String label, String unit, double value) {

  public Measurement {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(unit, "unit");
  }
}
