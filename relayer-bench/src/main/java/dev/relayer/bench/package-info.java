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
 *   <li>{@link dev.relayer.bench.anchor} is scenario 1 (pgbench), {@link dev.relayer.bench.peer}
 *       scenario 6 (transaction-outbox).
 * </ul>
 *
 * <h2>Adding Relayer's scenarios (2–5)</h2>
 *
 * Each is a {@link dev.relayer.bench.Scenario} in its own package, registered in {@code
 * ScenarioCatalog} (and removed from its pending list):
 *
 * <ul>
 *   <li><b>enqueue</b> (2): a jOOQ {@code DSLContext} over {@link
 *       dev.relayer.bench.db.ScenarioDatabase#pool}; at each of {@code --clients} threads, time a
 *       transaction with one business insert plus {@code RelayerStore} enqueue of 1 and of 10
 *       {@link dev.relayer.bench.Payload} messages, and the same transaction without the enqueue
 *       (HdrHistogram); record added p50/p99 and msgs/s; ratios to {@code
 *       anchor.enqueue10.c<n>.msgs}.
 *   <li><b>burndown</b> (3): {@link dev.relayer.bench.db.OutboxRows#insertPending} loads the rows
 *       (the table comes from {@link dev.relayer.bench.db.ScenarioDatabase#installRelayerSchema});
 *       a {@code DrainingSystem} whose {@code startDraining} hands all ids to the direct dispatcher
 *       ({@code afterCommit(ids)}), and one that starts only the maintenance sweeper (recovery
 *       delay 0), both with the testkit's in-memory transport wrapped so that every accepted
 *       message calls {@link dev.relayer.bench.pipeline.DeliveryProbe#delivered}; {@link
 *       dev.relayer.bench.pipeline.BurnDownDriver#run}; ratios to {@code anchor.drain.msgs} and
 *       {@code peer.burndown.msgs}.
 *   <li><b>steady</b> (4): a {@code ProducingSystem} whose {@code produce(seq)} enqueues one
 *       message carrying {@code seq} (for example in a header) in a jOOQ transaction, with a {@code
 *       TransactionListener} placed before Relayer's that calls {@link
 *       dev.relayer.bench.pipeline.DeliveryProbe#committed} on {@code commitEnd}; the direct
 *       dispatcher and maintenance running; {@link
 *       dev.relayer.bench.pipeline.SteadyStateDriver#run}; ratios to {@code anchor.combined.msgs}
 *       and {@code peer.steady.capacity.msgs}.
 *   <li><b>backlog</b> (5): the sweeper or direct burn-down of a fixed number of rows on top of
 *       100k, 1M and 10M waiting rows (sizes from options), ratio of the largest to the smallest.
 * </ul>
 */
package dev.relayer.bench;
