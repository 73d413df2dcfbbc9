package dev.relayer.bench.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Median and range of a few values (one per repetition).
 *
 * @param median the median (mean of the two middle values for an even count)
 * @param min the smallest value
 * @param max the largest value
 * @param count how many values
 */
public record Summary(double median, double min, double max, int count) {

  /** Summarises {@code values}; an empty list has no summary. */
  public static Summary of(List<Double> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("no values");
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    double median =
        n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    return new Summary(median, sorted.get(0), sorted.get(n - 1), n);
  }
}
