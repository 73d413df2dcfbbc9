package dev.relayer.bench.report;

import java.util.Objects;

/**
 * A ratio between two recorded figures, computed per repetition (both figures come from the same
 * repetition, so machine drift between repetitions cancels out) and reported as median and range.
 *
 * @param label what the ratio means, e.g. {@code burn-down / pgbench drain}
 * @param numerator full key ({@code scenario.metric}) of the numerator
 * @param denominator full key of the denominator
 * @param target the target the ratio must meet, e.g. {@code ≥ 0.8}, or empty if the ratio is
 *     informative only
 */
public record Ratio(String label, String numerator, String denominator, String target) {

  public Ratio {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(numerator, "numerator");
    Objects.requireNonNull(denominator, "denominator");
    Objects.requireNonNull(target, "target");
  }

  /** An informative ratio without a target. */
  public static Ratio of(String label, String numerator, String denominator) {
    return new Ratio(label, numerator, denominator, "");
  }
}
