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
import java.util.Optional;
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
  private final Map<Integer, Sample> samples = new HashMap<>();

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
   * Called at each bucket boundary: {@code index} -1 opens the first bucket; otherwise keeps what
   * bucket {@code index} did, for {@link #record}.
   */
  void bucketEnded(int index) throws SQLException {
    long now = System.nanoTime();
    CpuTime.Reading reading = CpuTime.Reading.now();
    long vacuums = counter("autovacuum_count");
    long analyzes = counter("autoanalyze_count");
    Map<String, StatementCosts.Cost> costs = statements ? byQuery() : Map.of();
    long vacuumed = vacuumSeconds.getAndSet(0);
    if (index >= 0) {
      samples.put(
          index,
          new Sample(
              now - bucketStart,
              reading.since(cpu),
              vacuumed,
              vacuums - vacuumsAtStart,
              analyzes - analyzesAtStart,
              statements ? Optional.of(statementsSince(costs)) : Optional.empty()));
    }
    bucketStart = now;
    cpu = reading;
    vacuumsAtStart = vacuums;
    analyzesAtStart = analyzes;
    costsAtStart = costs;
  }

  /**
   * Records what bucket {@code index} did under {@code key} and {@code label}, if it was sampled.
   */
  void record(int index, String key, String label) {
    Sample sample = samples.get(index);
    if (sample == null) {
      return;
    }
    double wall = sample.nanos();
    if (sample.cpu().machine() >= 0) {
      context.record(
          key + ".cpu.machine",
          label + ": machine CPU busy",
          "cores",
          sample.cpu().machine() / wall);
    }
    if (sample.cpu().jvm() >= 0) {
      context.record(
          key + ".cpu.jvm",
          label + ": this JVM's CPU (harness and Relayer)",
          "cores",
          sample.cpu().jvm() / wall);
    }
    context.record(
        key + ".vacuum.s",
        label + ": seconds sampled with a vacuum of the outbox running",
        "s",
        (double) sample.vacuumSeconds());
    context.record(
        key + ".autovacuums",
        label + ": autovacuums of the outbox ended",
        "runs",
        (double) sample.autovacuums());
    context.record(
        key + ".autoanalyzes",
        label + ": autoanalyzes of the outbox ended",
        "runs",
        (double) sample.autoanalyzes());
    sample
        .statements()
        .ifPresent(
            st -> {
              context.record(
                  key + ".sql.ms", label + ": statements' execution time, all", "ms", st.millis());
              st.top()
                  .ifPresent(
                      top ->
                          context.record(
                              key + ".sql.top.ms",
                              label
                                  + ": execution time of `"
                                  + shortText(top.query())
                                  + "` ("
                                  + top.calls()
                                  + " calls)",
                              "ms",
                              top.millis()));
            });
  }

  /** What one bucket did. */
  private record Sample(
      long nanos,
      CpuTime.Reading cpu,
      long vacuumSeconds,
      long autovacuums,
      long autoanalyzes,
      Optional<Statements> statements) {}

  /** The statements' execution time in a bucket, in all and of the costliest one. */
  private record Statements(double millis, Optional<StatementCosts.Cost> top) {}

  /** The statements' totals since the last boundary, from their totals {@code now}. */
  private Statements statementsSince(Map<String, StatementCosts.Cost> now) {
    double total = 0;
    StatementCosts.Cost top = null;
    for (StatementCosts.Cost cost : now.values()) {
      StatementCosts.Cost before = costsAtStart.get(cost.query());
      StatementCosts.Cost spent =
          before == null
              ? cost
              : new StatementCosts.Cost(
                  cost.query(),
                  cost.calls() - before.calls(),
                  cost.blocks() - before.blocks(),
                  cost.reads() - before.reads(),
                  cost.millis() - before.millis());
      total += spent.millis();
      if (top == null || spent.millis() > top.millis()) {
        top = spent;
      }
    }
    return new Statements(total, Optional.ofNullable(top));
  }

  /** The first 90 characters of a statement's text, without quotes. */
  static String shortText(String query) {
    String text = query.replace("\"", "").replace("`", "'");
    return text.length() <= 90 ? text : text.substring(0, 90) + "…";
  }

  /** The statements' totals by text; rows of one text (other roles, say) added up. */
  private Map<String, StatementCosts.Cost> byQuery() throws SQLException {
    Map<String, StatementCosts.Cost> byQuery = new HashMap<>();
    for (StatementCosts.Cost cost : StatementCosts.plus(StatementCosts.read(db), List.of())) {
      byQuery.put(cost.query(), cost);
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
  public void close() {
    stopped = true;
    sampler.interrupt();
    try {
      sampler.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
