package dev.relayer.bench.relayer;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.anchor.AnchorScenario;
import dev.relayer.bench.anchor.PlainJdbcOutbox;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.peer.PeerScenario;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.bench.pipeline.SteadyStateDriver;
import dev.relayer.bench.report.Ratio;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.MaintenanceOptions;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Scenario 4, steady state: producers commit one message per transaction at a fixed rate while
 * direct dispatch (and maintenance, as in production) runs; capacity and commit-to-send latency.
 */
public final class SteadyStateScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "steady";

  private static final String CAPACITY_KEY = ID + ".steady.capacity.msgs";
  private static final String JDBC_CAPACITY_KEY = ID + ".jdbc.capacity.msgs";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "4. Steady state: capacity and commit-to-send latency";
  }

  @Override
  public String description() {
    return "Each producer transaction is `DSLContext.transaction(tx -> store.enqueue(tx.dsl(),"
        + " message))` on an application `DSLContext` with Relayer's after-commit listener;"
        + " the started `RelayerDispatcher` (Relayer's default dispatch options unless"
        + " `--relayer-workers` / `--claim-batch` say otherwise) and `RelayerMaintenance` with"
        + " default options run beside them, with the no-op `ProbeTransport`. A timed message"
        + " carries its sequence number in a `bench-seq` header; its commit is taken by a"
        + " transaction listener placed before Relayer's, its send when the transport sees it."
        + " Capacity and levels as in *Method*.\n\n*Plain JDBC, the same writes* is the"
        + " Java client's own floor for this workload, measured after Relayer on the emptied"
        + " table with the same pool size and producers: each producer transaction is Relayer's"
        + " on the wire (auto-commit off, one single-row `INSERT … RETURNING id`, `COMMIT`)"
        + " written by hand, and `--drain-clients` threads run the pgbench drain's claim and"
        + " fenced delete as prepared statements in auto-commit (a claim that finds nothing"
        + " starts again at once, as pgbench does). Only its capacity is measured.";
  }

  @Override
  public List<Ratio> ratios() {
    return List.of(
        new Ratio(
            "steady capacity / pgbench combined enqueue+drain",
            CAPACITY_KEY,
            AnchorScenario.COMBINED_KEY,
            "≥ 0.8"),
        new Ratio(
            "steady capacity / peer steady capacity",
            CAPACITY_KEY,
            PeerScenario.CAPACITY_KEY,
            "≥ 3"),
        new Ratio(
            "pgbench combined, enqueue in BEGIN … COMMIT / pgbench combined",
            AnchorScenario.COMBINED_TX_KEY,
            AnchorScenario.COMBINED_KEY,
            "—"),
        new Ratio(
            "steady capacity / pgbench combined, enqueue in BEGIN … COMMIT",
            CAPACITY_KEY,
            AnchorScenario.COMBINED_TX_KEY,
            "—"),
        new Ratio(
            "plain-JDBC capacity / pgbench combined",
            JDBC_CAPACITY_KEY,
            AnchorScenario.COMBINED_KEY,
            "—"),
        new Ratio("steady capacity / plain-JDBC capacity", CAPACITY_KEY, JDBC_CAPACITY_KEY, "—"));
  }

  @Override
  public Map<String, String> targets() {
    return Map.of(ID + ".steady.at50.p50", "≤ 2 ms", ID + ".steady.at50.p99", "≤ 10 ms");
  }

  @Override
  public boolean warmsUp() {
    return true;
  }

  /** One whole steady-state run, untimed: a cold JVM reaches about half the warm capacity. */
  @Override
  public void warmUp(ScenarioContext context) throws Exception {
    run(context);
  }

  @Override
  public void run(ScenarioContext context) throws Exception {
    BenchOptions o = context.options();
    context.database().installRelayerSchema();
    DataSource pool = context.database().pool("relayer", o.poolSize());
    DeliveryProbe probe = new DeliveryProbe();
    try (RelayerRig rig =
        RelayerRig.started(pool, probe, o, DispatchOptions.defaults().queueCapacity())) {
      rig.startMaintenance(MaintenanceOptions.defaults());
      SteadyStateDriver.of(context, "steady", "Relayer steady state", rig::produce, probe).run();
    }
    context.database().execute("TRUNCATE " + OutboxRows.TABLE);
    DeliveryProbe jdbcProbe = new DeliveryProbe();
    DataSource jdbcPool = context.database().pool("jdbc", o.poolSize());
    try (PlainJdbcOutbox floor = PlainJdbcOutbox.started(jdbcPool, jdbcProbe, o.drainClients())) {
      SteadyStateDriver.of(context, "jdbc", "Plain JDBC, the same writes", floor, jdbcProbe)
          .runCapacity();
    }
  }
}
