package dev.relayer.bench.relayer;

import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.db.StatementCosts;
import dev.relayer.bench.pipeline.CpuTime;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the machine and the server did in each bucket of a pinned steady state, to tell what bounds
 * it: the machine's busy CPU and this JVM's (cores), the seconds in which a vacuum of the outbox
 * was running (sampled once a second from {@code pg_stat_progress_vacuum} on a connection of its
 * own), the outbox's autovacuums and autoanalyzes ({@code pg_stat_user_tables}), and the
 * statements' execution time ({@code pg_stat_statements}, tracked for the scenario's database
 * only): in all, and of the statement that took most.
 */
final class PinSamples implements AutoCloseable {

  private final ScenarioContext context;
  private final ScenarioDatabase db;
  private final boolean statements;
  private final AtomicLong vacuumSeconds = new AtomicLong();
  private final Thread sampler;
  private volatile boolean stopped;

  private long bucketStart;
  private CpuTime.Reading cpu;
  private long vacuumsAtStart;
  private long analyzesAtStart;
  private Map<String, StatementCosts.Cost> costsAtStart = Map.of();

  private PinSamples(ScenarioContext context, ScenarioDatabase db, boolean statements) {
    this.context = context;
    this.db = db;
    this.statements = statements;
    this.sampler = new Thread(this::sampleVacuum, "relayer-bench-vacuum-sampler");
    this.sampler.setDaemon(true);
  }

  /**
   * Starts sampling; {@code statements} when {@code pg_stat_statements} tracks the database. The
   * first {@link #bucketEnded} call after this opens the first bucket.
   */
  static PinSamples start(ScenarioContext context, ScenarioDatabase db, boolean statements) {
    PinSamples samples = new PinSamples(context, db, statements);
    samples.sampler.start();
    return samples;
  }

  /**
   * Called at each bucket boundary: {@code index} -1 opens the first bucket; otherwise records what
   * bucket {@code index} ({@code key}, {@code label}) did.
   */
  void bucketEnded(int index, String key, String label) throws SQLException {
    long now = System.nanoTime();
    CpuTime.Reading reading = CpuTime.Reading.now();
    long vacuums = counter("autovacuum_count");
    long analyzes = counter("autoanalyze_count");
    Map<String, StatementCosts.Cost> costs = statements ? byQuery() : Map.of();
    long vacuumed = vacuumSeconds.getAndSet(0);
    if (index >= 0) {
      double wall = now - bucketStart;
      CpuTime.Reading spent = reading.since(cpu);
      if (spent.machine() >= 0) {
        context.record(
            key + ".cpu.machine", label + ": machine CPU busy", "cores", spent.machine() / wall);
      }
      if (spent.jvm() >= 0) {
        context.record(
            key + ".cpu.jvm",
            label + ": this JVM's CPU (harness and Relayer)",
            "cores",
            spent.jvm() / wall);
      }
      context.record(
          key + ".vacuum.s",
          label + ": seconds sampled with a vacuum of the outbox running",
          "s",
          vacuumed);
      context.record(
          key + ".autovacuums",
          label + ": autovacuums of the outbox ended",
          "runs",
          vacuums - vacuumsAtStart);
      context.record(
          key + ".autoanalyzes",
          label + ": autoanalyzes of the outbox ended",
          "runs",
          analyzes - analyzesAtStart);
      if (statements) {
        recordStatements(key, label, costs);
      }
    }
    bucketStart = now;
    cpu = reading;
    vacuumsAtStart = vacuums;
    analyzesAtStart = analyzes;
    costsAtStart = costs;
  }

  private void recordStatements(String key, String label, Map<String, StatementCosts.Cost> costs) {
    double total = 0;
    String top = null;
    double topMillis = -1;
    long topCalls = 0;
    for (StatementCosts.Cost cost : costs.values()) {
      StatementCosts.Cost before = costsAtStart.get(cost.query());
      double millis = cost.millis() - (before == null ? 0 : before.millis());
      total += millis;
      if (millis > topMillis) {
        topMillis = millis;
        top = cost.query();
        topCalls = cost.calls() - (before == null ? 0 : before.calls());
      }
    }
    context.record(key + ".sql.ms", label + ": statements' execution time, all", "ms", total);
    if (top != null) {
      context.record(
          key + ".sql.top.ms",
          label + ": execution time of `" + shortText(top) + "` (" + topCalls + " calls)",
          "ms",
          topMillis);
    }
  }

  /** The first 90 characters of a statement's text, without quotes. */
  static String shortText(String query) {
    String text = query.replace("\"", "").replace("`", "'");
    return text.length() <= 90 ? text : text.substring(0, 90) + "…";
  }

  private Map<String, StatementCosts.Cost> byQuery() throws SQLException {
    List<StatementCosts.Cost> costs = StatementCosts.read(db);
    Map<String, StatementCosts.Cost> byQuery = new HashMap<>();
    for (StatementCosts.Cost cost : costs) {
      byQuery.merge(cost.query(), cost, (a, b) -> a);
    }
    return byQuery;
  }

  private long counter(String column) throws SQLException {
    return db.queryLong(
        "SELECT coalesce(sum("
            + column
            + "), 0) FROM pg_stat_user_tables WHERE relid = '"
            + OutboxRows.TABLE
            + "'::regclass");
  }

  private void sampleVacuum() {
    String sql =
        "SELECT count(*) FROM pg_stat_progress_vacuum WHERE relid = '"
            + OutboxRows.TABLE
            + "'::regclass";
    try (Connection c = db.connect();
        Statement statement = c.createStatement()) {
      while (!stopped) {
        try (ResultSet rs = statement.executeQuery(sql)) {
          if (rs.next() && rs.getLong(1) > 0) {
            vacuumSeconds.incrementAndGet();
          }
        }
        Thread.sleep(1000);
      }
    } catch (SQLException e) {
      if (!stopped) {
        context.note("sampling pg_stat_progress_vacuum stopped: " + e.getMessage());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws InterruptedException {
    stopped = true;
    sampler.interrupt();
    sampler.join(5000);
  }
}
