package dev.relayer.bench.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Every figure of a run, by scenario, key and repetition, in the order the scenarios recorded them.
 * Thread-safe: scenarios may record from their worker threads.
 */
public final class Results {

  private final int repetitions;
  private final Map<String, Map<String, Series>> byScenario = new LinkedHashMap<>();
  private final Map<String, Set<String>> notes = new LinkedHashMap<>();

  public Results(int repetitions) {
    this.repetitions = repetitions;
  }

  /** Number of repetitions of the run. */
  public int repetitions() {
    return repetitions;
  }

  /** Records {@code measurement} of {@code scenario} for repetition {@code rep} (0-based). */
  public synchronized void record(String scenario, int rep, Measurement measurement) {
    Series series =
        byScenario
            .computeIfAbsent(scenario, s -> new LinkedHashMap<>())
            .computeIfAbsent(
                measurement.key(),
                k -> new Series(measurement.key(), measurement.label(), measurement.unit()));
    series.values.put(rep, measurement.value());
  }

  /** Adds a note to the scenario's section; the same text is kept once. */
  public synchronized void note(String scenario, String text) {
    notes.computeIfAbsent(scenario, s -> new LinkedHashSet<>()).add(text);
  }

  /** The series of one scenario, in recording order. */
  public synchronized List<Series> series(String scenario) {
    return List.copyOf(byScenario.getOrDefault(scenario, Map.of()).values());
  }

  /** The notes of one scenario. */
  public synchronized List<String> notes(String scenario) {
    return List.copyOf(notes.getOrDefault(scenario, Set.of()));
  }

  /** The value of a full key in one repetition, if recorded. */
  public synchronized OptionalDouble value(String key, int rep) {
    for (Map<String, Series> scenario : byScenario.values()) {
      Series series = scenario.get(key);
      if (series != null && series.values.containsKey(rep)) {
        return OptionalDouble.of(series.values.get(rep));
      }
    }
    return OptionalDouble.empty();
  }

  /** The per-repetition ratios {@code numerator / denominator} where both were recorded. */
  public synchronized List<Double> ratios(Ratio ratio) {
    List<Double> values = new ArrayList<>();
    for (int rep = 0; rep < repetitions; rep++) {
      OptionalDouble n = value(ratio.numerator(), rep);
      OptionalDouble d = value(ratio.denominator(), rep);
      if (n.isPresent() && d.isPresent() && d.getAsDouble() != 0) {
        values.add(n.getAsDouble() / d.getAsDouble());
      }
    }
    return values;
  }

  /** The values of one key over the repetitions. */
  public static final class Series {
    private final String key;
    private final String label;
    private final String unit;
    private final Map<Integer, Double> values = new LinkedHashMap<>();

    Series(String key, String label, String unit) {
      this.key = key;
      this.label = label;
      this.unit = unit;
    }

    public String key() {
      return key;
    }

    public String label() {
      return label;
    }

    public String unit() {
      return unit;
    }

    /** The recorded values in repetition order. */
    public synchronized List<Double> values() {
      List<Integer> reps = new ArrayList<>(values.keySet());
      Collections.sort(reps);
      List<Double> ordered = new ArrayList<>();
      for (Integer rep : reps) {
        ordered.add(values.get(rep));
      }
      return ordered;
    }
  }
}
