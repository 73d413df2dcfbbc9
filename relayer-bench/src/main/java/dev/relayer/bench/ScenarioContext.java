package dev.relayer.bench;

import dev.relayer.bench.anchor.Pgbench;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.report.Measurement;
import dev.relayer.bench.report.Results;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What one run of one scenario gets: the options, its fresh database, the repetition it belongs to,
 * and where to record figures and notes.
 */
public final class ScenarioContext {

  private final Scenario scenario;
  private final BenchOptions options;
  private final ScenarioDatabase database;
  private final int repetition;
  private final Results results;
  private final Optional<Pgbench> pgbench;

  ScenarioContext(
      Scenario scenario,
      BenchOptions options,
      ScenarioDatabase database,
      int repetition,
      Results results,
      Optional<Pgbench> pgbench) {
    this.scenario = scenario;
    this.options = options;
    this.database = database;
    this.repetition = repetition;
    this.results = results;
    this.pgbench = pgbench;
  }

  public BenchOptions options() {
    return options;
  }

  /** The fresh database of this run, dropped when the run ends. */
  public ScenarioDatabase database() {
    return database;
  }

  /** 0-based repetition; {@code -1} during the untimed warm-up. */
  public int repetition() {
    return repetition;
  }

  /** pgbench, when it was found. */
  public Optional<Pgbench> pgbench() {
    return pgbench;
  }

  /** Records a figure under {@code <scenario id>.<key>} and prints it as progress. */
  public void record(String key, String label, String unit, double value) {
    results.record(
        scenario.id(), repetition, new Measurement(scenario.id() + "." + key, label, unit, value));
    progress(String.format("%-44s %14s %s", label, Format.number(value), unit));
  }

  /** The figure recorded under {@code <scenario id>.<key>} in this repetition, if any. */
  public OptionalDouble recorded(String key) {
    return results.value(scenario.id() + "." + key, repetition);
  }

  /** Adds a note to the scenario's section of the report. */
  public void note(String text) {
    results.note(scenario.id(), text);
    progress("note: " + text);
  }

  /** Prints a progress line on stderr. */
  public void progress(String line) {
    if (repetition == WARM_UP) {
      System.err.printf("[warm-up %s] %s%n", scenario.id(), line);
    } else {
      System.err.printf(
          "[rep %d/%d %s] %s%n", repetition + 1, options.repetitions(), scenario.id(), line);
    }
  }

  /** The repetition number of a warm-up run, whose figures go to a discarded {@link Results}. */
  static final int WARM_UP = -1;
}
