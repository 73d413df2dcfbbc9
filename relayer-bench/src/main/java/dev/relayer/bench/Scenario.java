package dev.relayer.bench;

import dev.relayer.bench.report.Ratio;
import java.util.List;
import java.util.Map;

/**
 * One benchmark scenario. The harness runs every selected scenario once per repetition, interleaved
 * with the others, each time on a fresh database that it creates before {@link #run} and drops
 * after it.
 *
 * <p>A scenario records its figures with {@link ScenarioContext#record} under stable keys (for
 * example {@code drain.msgs}); the report shows the median and range of each key over the
 * repetitions, and the {@link #ratios()} to figures of other scenarios measured in the same
 * repetition (the anchors).
 */
public interface Scenario {

  /** Short stable id used on the command line and as the key prefix, e.g. {@code anchor}. */
  String id();

  /** Title of the scenario's section in the report. */
  String title();

  /** What the scenario measures and how, as Markdown for the report (one paragraph or a list). */
  String description();

  /** Runs one repetition on the fresh database in {@code context}. */
  void run(ScenarioContext context) throws Exception;

  /**
   * Whether the scenario runs Java code on its measured path and so wants {@link #warmUp} before
   * its first repetition.
   */
  default boolean warmsUp() {
    return false;
  }

  /**
   * Runs the scenario's Java systems once, untimed, on a fresh database of its own before the first
   * repetition, so that the JIT compiler has settled before anything is timed (pgbench, the anchor,
   * needs no such run). What it records is discarded.
   */
  default void warmUp(ScenarioContext context) throws Exception {}

  /** Ratios of this scenario's figures to other figures of the same repetition. */
  default List<Ratio> ratios() {
    return List.of();
  }

  /**
   * Targets for figures of this scenario that are absolute rather than ratios, by full key (for
   * example {@code steady.at50.p50} → {@code ≤ 2 ms}), shown beside the figures.
   */
  default Map<String, String> targets() {
    return Map.of();
  }
}
