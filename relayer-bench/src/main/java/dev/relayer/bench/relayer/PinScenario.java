package dev.relayer.bench.relayer;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.OutboxBloat;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.db.StatementCosts;
import dev.relayer.bench.pipeline.BurnDownDriver;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.bench.pipeline.SteadyStateDriver;
import dev.relayer.bench.report.Ratio;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.testkit.HeldSnapshot;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Scenario 10, a held xmin horizon: a {@code REPEATABLE READ} transaction keeps a snapshot open on
 * a connection of its own (see {@link HeldSnapshot}) during a steady state at 50% of capacity and
 * during a direct-dispatch burn-down of {@code --rows} rows, beside the same burn-down without it.
 */
public final class PinScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "pin";

  /** The pin's {@code application_name}. */
  static final String PIN_NAME = "relayer-bench-pin";

  /** The share of the measured capacity the pinned steady state offers. */
  static final double LOAD = 0.5;

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "10. Held xmin horizon: steady state and burn-down under an open snapshot";
  }

  @Override
  // One string per Markdown paragraph, wrapped at spaces: as a text block every wrap would need
  // a line-continuation escape.
  @SuppressWarnings("StringConcatToTextBlock")
  public String description() {
    return String.join(
        "\n",
        "A `REPEATABLE READ` transaction on a connection of its own (`BEGIN ISOLATION LEVEL"
            + " REPEATABLE READ; SELECT 1 FROM relayer_outbox LIMIT 1`, then idle in"
            + " transaction) holds the xmin horizon, so that no vacuum can remove the row"
            + " versions Relayer's deletes leave behind.",
        "",
        "- **pinned steady state**: Relayer as in scenario 4 (direct dispatch and maintenance at"
            + " their defaults); its capacity is measured, then producers offer 50% of it while"
            + " the snapshot is held for `--pin` (after `--warmup`). Per bucket of `--pin-bucket`:"
            + " the rate achieved, commit-to-send p50/p99 of the messages committed in it, and at"
            + " its end the outbox's `n_dead_tup` (the statistics lag the writes by about a"
            + " second) and the pin's `age(backend_xmin)`. *Worst rate* is the lowest bucket rate"
            + " as a share of the offered rate.",
        "- **burn-down**: `--rows` rows loaded and settled as in *Method*, drained by direct"
            + " dispatch as in scenario 3, once without and once with the snapshot taken after"
            + " the load.",
        "- Dead tuples of the outbox's indexes come from `pgstattuple` (created in the"
            + " scenario's database; a note says so when it cannot be): an index entry is marked"
            + " dead only once its row is dead to every snapshot, so under the pin the entries"
            + " of deleted rows show as the index's entry count growing while the table's live"
            + " rows stay flat.",
        "- Per bucket, to tell what bounds the pinned steady state: the machine's busy CPU and"
            + " the harness JVM's (cores), the seconds in which a vacuum of the outbox was running"
            + " (`pg_stat_progress_vacuum`, sampled once a second), the outbox's autovacuums and"
            + " autoanalyzes that ended in it, and the statements' execution time in all and of"
            + " the costliest statement (`pg_stat_statements`, tracking the scenario's database"
            + " only).");
  }

  @Override
  public List<Ratio> ratios() {
    return List.of(
        new Ratio(
            "burn-down under the pin / burn-down without it",
            ID + ".burndown.pinned.msgs",
            ID + ".burndown.unpinned.msgs",
            "≥ 0.8"));
  }

  @Override
  public Map<String, String> targets() {
    return Map.of(
        ID + ".pinned.p99.worst", "≤ 20 ms",
        ID + ".pinned.rate.worst", "≥ 0.95 (holds its rate)");
  }

  @Override
  public boolean warmsUp() {
    return true;
  }

  /** The capacity measurement and a direct burn-down of {@link BenchOptions#warmUpRows()}. */
  @Override
  public void warmUp(ScenarioContext context) throws Exception {
    ScenarioDatabase db = context.database();
    db.installRelayerSchema();
    DataSource pool = db.pool("relayer", context.options().poolSize());
    DeliveryProbe probe = new DeliveryProbe();
    try (RelayerRig rig =
        RelayerRig.started(
            pool, probe, context.options(), DispatchOptions.defaults().queueCapacity())) {
      SteadyStateDriver.of(context, "steady", "Relayer steady state", rig::produce, probe)
          .measureCapacity();
    }
    db.execute("TRUNCATE " + OutboxRows.TABLE);
    long rows = context.options().warmUpRows();
    OutboxRows.insertPending(db, rows);
    BurnDownScenario.timeDirect(context, pool, IdRange.of(db), rows, 0, "warm-up");
  }

  @Override
  public void run(ScenarioContext context) throws Exception {
    ScenarioDatabase db = context.database();
    db.installRelayerSchema();
    Optional<String> noPgstattuple = OutboxBloat.enablePgstattuple(db);
    noPgstattuple.ifPresent(
        why ->
            context.note(
                "pgstattuple could not be created, so index entries were not measured: " + why));
    boolean pgstattuple = noPgstattuple.isEmpty();
    Optional<String> noStatements = StatementCosts.enable(db);
    noStatements.ifPresent(
        why ->
            context.note(
                "pg_stat_statements could not be enabled, so statements were not measured: "
                    + why));
    DataSource pool = db.pool("relayer", context.options().poolSize());
    pinnedSteadyState(context, db, pool, pgstattuple, noStatements.isEmpty());
    db.execute("TRUNCATE " + OutboxRows.TABLE);
    burnDowns(context, db, pool, pgstattuple);
  }

  private static void pinnedSteadyState(
      ScenarioContext context,
      ScenarioDatabase db,
      DataSource pool,
      boolean pgstattuple,
      boolean statements)
      throws Exception {
    BenchOptions o = context.options();
    DeliveryProbe probe = new DeliveryProbe();
    try (RelayerRig rig =
        RelayerRig.started(pool, probe, o, DispatchOptions.defaults().queueCapacity())) {
      rig.startMaintenance(MaintenanceOptions.defaults());
      SteadyStateDriver driver =
          SteadyStateDriver.of(context, "steady", "Relayer steady state", rig::produce, probe);
      double capacity = driver.measureCapacity();
      if (!(capacity > 0)) {
        context.note("nothing was delivered at saturation, so the pinned steady state did not run");
        return;
      }
      double rate = capacity * LOAD;
      context.record(
          "pinned.offered", "pinned steady state: offered rate (50% of capacity)", "msgs/s", rate);
      Map<Integer, OutboxBloat> bloat = new TreeMap<>();
      Map<Integer, Long> xminAge = new TreeMap<>();
      List<SteadyStateDriver.Bucket> buckets;
      // pgstattuple reads every page of every outbox index: only at the pin's start and end,
      // where its figures are reported, so that it does not load the buckets in between.
      long lastBucket =
          (o.pin().toNanos() + o.pinBucket().toNanos() - 1) / o.pinBucket().toNanos() - 1;
      PinSamples samples = PinSamples.start(context, db, statements);
      try (HeldSnapshot pin = HeldSnapshot.take(db.connect(), PIN_NAME, OutboxRows.TABLE);
          samples) {
        buckets =
            driver.runBuckets(
                rate,
                o.pin(),
                o.pinBucket(),
                i -> {
                  try {
                    boolean edge = i == -1 || i == lastBucket;
                    bloat.put(i, OutboxBloat.sample(db, pgstattuple && edge));
                    xminAge.put(i, OutboxBloat.xminAge(db, pin.pid()));
                    samples.bucketEnded(i);
                  } catch (SQLException e) {
                    throw new IllegalStateException("sampling the outbox failed: " + e, e);
                  }
                });
      }
      double worstRate = Double.POSITIVE_INFINITY;
      double worstP99 = 0;
      double from = 0;
      for (SteadyStateDriver.Bucket b : buckets) {
        String key = String.format(Locale.ROOT, "pinned.b%02d", b.index() + 1);
        String label =
            String.format(
                Locale.ROOT,
                "pinned steady state, bucket %d (%.0f–%.0f s)",
                b.index() + 1,
                from,
                from + b.seconds());
        from += b.seconds();
        double p99 = b.latencies().millisAt(99);
        context.record(key + ".rate", label + ": rate achieved", "msgs/s", b.rate());
        context.record(
            key + ".p50", label + ": commit-to-send p50", "ms", b.latencies().millisAt(50));
        context.record(key + ".p99", label + ": commit-to-send p99", "ms", p99);
        context.record(
            key + ".dead",
            label + ": outbox n_dead_tup at its end",
            "tuples",
            (double) bloat.get(b.index()).deadTuples());
        context.record(
            key + ".xmin",
            label + ": age(backend_xmin) of the pin at its end",
            "xids",
            xminAge.get(b.index()));
        samples.record(b.index(), key, label);
        worstRate = Math.min(worstRate, b.rate() / rate);
        worstP99 = Double.isNaN(p99) ? worstP99 : Math.max(worstP99, p99);
      }
      if (!buckets.isEmpty()) {
        context.record(
            "pinned.rate.worst",
            "pinned steady state: worst bucket rate / offered rate",
            "×",
            worstRate);
        context.record("pinned.p99.worst", "pinned steady state: worst bucket p99", "ms", worstP99);
        recordIndexes(context, "pinned.start", "pinned steady state, pin taken", bloat.get(-1));
        recordIndexes(
            context,
            "pinned.end",
            "pinned steady state, before the pin ended",
            bloat.get(buckets.size() - 1));
      }
    }
  }

  private static void burnDowns(
      ScenarioContext context, ScenarioDatabase db, DataSource pool, boolean pgstattuple)
      throws Exception {
    long rows = context.options().rows();
    OutboxRows.insertPending(db, rows);
    String unpinnedLabel = "burn-down without a held snapshot";
    BurnDownScenario.timeDirect(context, pool, IdRange.of(db), rows, 0, unpinnedLabel)
        .record(context, "burndown.unpinned", unpinnedLabel);
    db.execute("TRUNCATE " + OutboxRows.TABLE);
    OutboxRows.insertPending(db, rows);
    String pinnedLabel = "burn-down under a held snapshot";
    try (HeldSnapshot pin = HeldSnapshot.take(db.connect(), PIN_NAME, OutboxRows.TABLE)) {
      BurnDownDriver.Timing pinned =
          BurnDownScenario.timeDirect(context, pool, IdRange.of(db), rows, 0, pinnedLabel);
      pinned.record(context, "burndown.pinned", pinnedLabel);
      context.record(
          "burndown.pinned.xmin",
          pinnedLabel + ": age(backend_xmin) of the pin at the end",
          "xids",
          (double) OutboxBloat.xminAge(db, pin.pid()));
      // The burn-down's backends report their deletes to the statistics within about a second
      // of going idle: wait (bounded) until the emptied table shows no live rows.
      OutboxBloat end = OutboxBloat.sample(db, pgstattuple);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (end.liveTuples() > 0 && System.nanoTime() - deadline < 0) {
        TimeUnit.MILLISECONDS.sleep(200);
        end = OutboxBloat.sample(db, pgstattuple);
      }
      if (end.liveTuples() > 0) {
        context.note(
            pinnedLabel
                + ": the statistics still showed "
                + end.liveTuples()
                + " live rows 10 s after the burn-down; its dead tuples are undercounted");
      }
      context.record(
          "burndown.pinned.dead",
          pinnedLabel + ": outbox n_dead_tup at the end",
          "tuples",
          (double) end.deadTuples());
      recordIndexes(context, "burndown.pinned", pinnedLabel + ", at the end", end);
    }
  }

  private static void recordIndexes(
      ScenarioContext context, String key, String label, OutboxBloat bloat) {
    if (bloat == null) {
      return;
    }
    context.record(
        key + ".live", label + ": outbox n_live_tup", "tuples", (double) bloat.liveTuples());
    for (OutboxBloat.Index index : bloat.indexes()) {
      String k = key + "." + index.name();
      context.record(
          k + ".mib", label + ": " + index.name() + " size", "MiB", index.bytes() / 1048576.0);
      index
          .entries()
          .ifPresent(
              n -> context.record(k + ".entries", label + ": " + index.name(), "entries", n));
      index
          .deadEntries()
          .ifPresent(
              n ->
                  context.record(
                      k + ".deadEntries", label + ": " + index.name(), "entries marked dead", n));
    }
  }
}
