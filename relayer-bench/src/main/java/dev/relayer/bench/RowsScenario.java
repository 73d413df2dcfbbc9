package dev.relayer.bench;

/**
 * A scenario whose one body takes the number of rows to work through: the untimed warm-up runs it
 * with {@link BenchOptions#warmUpRows()}, each repetition with {@code --rows}.
 */
public interface RowsScenario extends Scenario {

  /** Runs the scenario over {@code rows} rows, recording its figures in {@code context}. */
  void run(ScenarioContext context, long rows) throws Exception;

  @Override
  default boolean warmsUp() {
    return true;
  }

  @Override
  default void warmUp(ScenarioContext context) throws Exception {
    run(context, context.options().warmUpRows());
  }

  @Override
  default void run(ScenarioContext context) throws Exception {
    run(context, context.options().rows());
  }
}
