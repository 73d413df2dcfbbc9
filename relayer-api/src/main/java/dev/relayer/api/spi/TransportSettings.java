package dev.relayer.api.spi;

import java.time.Duration;
import java.util.List;

/**
 * The setting checks every transport builder makes, worded the same everywhere. Each adds a problem
 * to {@code problems} instead of throwing, so that a builder reports every bad setting at once.
 */
public final class TransportSettings {

  private TransportSettings() {}

  /** The transport's name must not be null or blank. */
  public static void checkName(List<String> problems, String name) {
    if (name == null || name.isBlank()) {
      problems.add("name must not be blank");
    }
  }

  /** The native batch limit must be between 1 and {@code limit}. */
  public static void checkBatchSize(List<String> problems, int maxBatchSize, int limit) {
    if (maxBatchSize < 1 || maxBatchSize > limit) {
      problems.add("maxBatchSize must be between 1 and " + limit + ", was " + maxBatchSize);
    }
  }

  /** {@code value} must be a positive duration that fits an {@code int} of milliseconds. */
  public static void checkPositive(List<String> problems, String option, Duration value) {
    if (value == null || value.isZero() || value.isNegative()) {
      problems.add(option + " must be a positive duration, was " + value);
    } else if (value.toMillis() > Integer.MAX_VALUE) {
      problems.add(option + " must be shorter than " + Duration.ofMillis(Integer.MAX_VALUE));
    }
  }
}
