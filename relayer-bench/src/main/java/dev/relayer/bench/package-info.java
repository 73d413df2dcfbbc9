/**
 * relayer-bench: Relayer measured side by side with PostgreSQL's own limit (pgbench) and with a
 * Java peer, in one run. Not part of the test command: the module has no tests, and only compiles
 * and packages during {@code mvn verify}.
 *
 * <h2>Run</h2>
 *
 * {@code bench/run [SCENARIOS] [options]} at the repository root builds the module and runs {@link
 * dev.relayer.bench.BenchMain}; {@code bench/run --help} lists the options, {@code bench/run
 * --quick} is a smoke run. {@code docs/benchmarks.md} describes the method and holds the published
 * results.
 *
 * <h2>Structure</h2>
 *
 * <ul>
 *   <li>{@link dev.relayer.bench.BenchMain} runs every selected {@link dev.relayer.bench.Scenario}
 *       once per repetition, interleaved (the order rotates by one each repetition), each run on a
 *       fresh database ({@link dev.relayer.bench.db.ScenarioDatabase}: {@code CREATE DATABASE}
 *       before, {@code DROP DATABASE … WITH (FORCE)} after), then renders the report ({@link
 *       dev.relayer.bench.report.MarkdownReport}).
 *   <li>A scenario records figures under stable keys ({@code <scenario>.<metric>}) through {@link
 *       dev.relayer.bench.ScenarioContext#record}; its {@link dev.relayer.bench.Scenario#ratios()}
 *       name figures of other scenarios (the anchors, the peer) and are computed within each
 *       repetition.
 *   <li>{@link dev.relayer.bench.pipeline} holds what whole-pipeline scenarios share: a {@link
 *       dev.relayer.bench.pipeline.DeliveryProbe} that the system's sink and producers report to,
 *       the {@link dev.relayer.bench.pipeline.BurnDownDriver} (for any {@link
 *       dev.relayer.bench.pipeline.DrainingSystem}) and the {@link
 *       dev.relayer.bench.pipeline.SteadyStateDriver} (for any {@link
 *       dev.relayer.bench.pipeline.ProducingSystem}).
 *   <li>{@link dev.relayer.bench.anchor} is scenario 1 (pgbench) and the same writes over plain
 *       JDBC ({@link dev.relayer.bench.anchor.PlainJdbcOutbox}, measured beside Relayer's steady
 *       state); {@link dev.relayer.bench.peer} is scenario 6 (transaction-outbox).
 * </ul>
 *
 * <h2>Relayer's scenarios</h2>
 *
 * {@link dev.relayer.bench.relayer} holds scenarios 2–5 and Relayer's scenarios for ordered lanes
 * ({@code lanes}) and real brokers ({@code brokers}). {@code RelayerRig} assembles Relayer as an
 * application would (store, jOOQ {@code DSLContext} over the scenario's pool, dispatcher with the
 * after-commit listener, maintenance) with the no-op {@link
 * dev.relayer.bench.relayer.ProbeTransport}, which reports every accepted message to the probe.
 *
 * <h2>Adding a scenario</h2>
 *
 * Implement {@link dev.relayer.bench.Scenario} in a package of its own, reuse the drivers where a
 * whole pipeline is measured, name the anchors it is compared with in {@link
 * dev.relayer.bench.Scenario#ratios()} and register it in {@code ScenarioCatalog}.
 */
package dev.relayer.bench;
