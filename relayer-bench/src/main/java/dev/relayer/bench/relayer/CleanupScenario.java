package dev.relayer.bench.relayer;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.bench.report.Ratio;
import dev.relayer.dispatch.CleanupResult;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.RelayerDispatcher;
import dev.relayer.dispatch.RelayerMaintenance;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Scenario 9, cleanup at volume: inbox records and dead rows past retention, deleted by Relayer's
 * cleanup at its default options and by PostgreSQL's own batched {@code DELETE … WHERE ctid =
 * ANY(…)} loop over plain JDBC, each while a steady producer writes outbox rows beside it.
 */
public final class CleanupScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "cleanup";

  private static final String RELAYER_KEY = ID + ".relayer.rows";
  private static final String ANCHOR_KEY = ID + ".ctid.rows";
  private static final String ALONE_KEY = ID + ".producer.alone.msgs";
  private static final String DURING_RELAYER_KEY = ID + ".producer.relayer.msgs";
  private static final String DURING_ANCHOR_KEY = ID + ".producer.ctid.msgs";
  private static final String PACED_KEY = ID + ".paced.rows";
  private static final String DURING_PACED_KEY = ID + ".producer.paced.msgs";

  /** The {@code cleanupPauseFactor} of the paced measurement: cleanup takes half the time. */
  private static final double PACED_FACTOR = 1;

  /** The anchor's batch: the same as Relayer's default {@code cleanupBatchSize}. */
  private static final int ANCHOR_BATCH = MaintenanceOptions.defaults().cleanupBatchSize();

  /** Inbox rows of the unmeasured warm-up drains (and a tenth of that in dead rows). */
  private static final long WARM_UP_ROWS = 500_000;

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "Cleanup at volume";
  }

  @Override
  public String description() {
    return "The inbox is loaded with 10,000,000 records processed 8–9 days ago (past the default"
        + " 7-day `inboxRetention`, 8 consumers, random message ids) and the dead table with"
        + " 1,000,000 rows that failed 31–32 days ago (past the default 30-day"
        + " `deadRetention`, the benchmark message's 256-byte body), by the server, in"
        + " timestamp order as a live table fills, with the tables' indexes built after the"
        + " load under the schema's names; then"
        + " `VACUUM ANALYZE` and `CHECKPOINT` (`--quick`: 20,000 and 2,000), after both deleters"
        + " have run once, unmeasured, over 500,000 and 50,000 such rows (not with `--quick`), so"
        + " that neither pays for the JVM compiling its path. A producer of"
        + " `--producers` threads first runs flat out for `--seconds` (its capacity), then at"
        + " half that rate for `--seconds` (*alone*), each transaction the hand-written"
        + " single-row outbox insert and commit. *Relayer* calls"
        + " `RelayerMaintenance.cleanupOnce()` at the default options (`cleanupBatchSize`"
        + " 5000, `cleanupBudget` 5 s) until a run reports `drained`, with the producer at the"
        + " same rate beside it; the rate is all rows deleted over the whole time. Then both"
        + " tables are truncated and loaded again the same way and *Relayer paced* does the same"
        + " with `cleanupPauseFactor` 1 (each batch followed by a pause as long as itself); they"
        + " are truncated and loaded once more and *ctid loop* deletes them over plain JDBC"
        + " in auto-commit: `DELETE FROM t WHERE ctid = ANY(ARRAY(SELECT ctid FROM t WHERE ts"
        + " < $cutoff LIMIT 5000))` repeated until it deletes fewer than 5000, the dead table"
        + " first, with the producer beside it again; its session sets `synchronous_commit ="
        + " off`, so that its commits, like Relayer's cleanup batches, do not wait for the WAL"
        + " flush. The producer's figures are the rate it"
        + " achieved while each ran.";
  }

  @Override
  public List<Ratio> ratios() {
    return List.of(
        new Ratio(
            "Relayer cleanup / ctid loop (rows per second)", RELAYER_KEY, ANCHOR_KEY, "≥ 0.8"),
        new Ratio(
            "producer during Relayer cleanup / producer alone",
            DURING_RELAYER_KEY,
            ALONE_KEY,
            "≥ 0.9"),
        new Ratio("producer during ctid loop / producer alone", DURING_ANCHOR_KEY, ALONE_KEY, "—"),
        new Ratio(
            "Relayer cleanup paced (factor 1) / ctid loop (rows per second)",
            PACED_KEY,
            ANCHOR_KEY,
            "—"),
        new Ratio(
            "producer during paced cleanup / producer alone", DURING_PACED_KEY, ALONE_KEY, "—"));
  }

  @Override
  public void run(ScenarioContext context) throws Exception {
    BenchOptions o = context.options();
    ScenarioDatabase db = context.database();
    long inbox = o.quick() ? 20_000 : 10_000_000;
    long dead = inbox / 10;
    db.installRelayerSchema();
    DataSource relayerPool = db.pool("relayer", 2);
    if (!o.quick()) {
      warmUp(context, relayerPool);
    }
    load(context, inbox, dead);
    DataSource producerPool = db.pool("producer", o.producers());
    Duration window = o.window();

    double capacity = Producer.flatOut(producerPool, o.producers(), window);
    context.record("producer.capacity.msgs", "producer capacity, flat out", "msg/s", capacity);
    double rate = capacity / 2;
    Producer.Run alone = Producer.start(producerPool, o.producers(), rate);
    Thread.sleep(window.toMillis());
    alone.stop();
    context.record(
        "producer.alone.msgs", "producer at half capacity, alone", "msg/s", alone.rate());
    context.record("producer.alone.p99", "  its commit latency p99", "ms", alone.p99Millis());

    drainByRelayer(
        context,
        producerPool,
        relayerPool,
        rate,
        MaintenanceOptions.defaults(),
        "relayer",
        "Relayer cleanup (defaults)",
        "producer during Relayer cleanup",
        inbox + dead);

    // Each drain starts as Relayer's first: fresh files, not the emptied ones deletes left behind.
    db.execute("TRUNCATE relayer_inbox, relayer_outbox_dead");
    load(context, inbox, dead);
    drainByRelayer(
        context,
        producerPool,
        relayerPool,
        rate,
        MaintenanceOptions.builder().cleanupPauseFactor(PACED_FACTOR).build(),
        "paced",
        "Relayer cleanup, cleanupPauseFactor 1",
        "producer during paced cleanup",
        inbox + dead);

    db.execute("TRUNCATE relayer_inbox, relayer_outbox_dead");
    load(context, inbox, dead);
    Producer.Run besideAnchor = Producer.start(producerPool, o.producers(), rate);
    long start = System.nanoTime();
    long anchorDeleted;
    try (Connection c = db.connect()) {
      // The commit mode of Relayer's cleanup batches: the comparison is of the deletes.
      try (Statement settings = c.createStatement()) {
        settings.execute("SET synchronous_commit = off");
      }
      anchorDeleted =
          ctidLoop(c, "relayer_outbox_dead", "failed_at", Instant.now().minus(Duration.ofDays(30)))
              + ctidLoop(
                  c, "relayer_inbox", "processed_at", Instant.now().minus(Duration.ofDays(7)));
    }
    double anchorSeconds = (System.nanoTime() - start) / 1e9;
    besideAnchor.stop();
    check(context, db, anchorDeleted, inbox + dead);
    context.record(
        "ctid.rows",
        "ctid = ANY(…) loop, batches of 5000",
        "rows/s",
        anchorDeleted / anchorSeconds);
    context.record("ctid.seconds", "  time to drain", "s", anchorSeconds);
    context.record(
        "producer.ctid.msgs", "producer during the ctid loop", "msg/s", besideAnchor.rate());
    context.record("producer.ctid.p99", "  its commit latency p99", "ms", besideAnchor.p99Millis());
  }

  /**
   * Drains both tables with {@code cleanupOnce()} at {@code options} while the producer writes at
   * {@code rate}; records the deletion rate under {@code key} and the producer's beside it.
   */
  private static void drainByRelayer(
      ScenarioContext context,
      DataSource producerPool,
      DataSource relayerPool,
      double rate,
      MaintenanceOptions options,
      String key,
      String label,
      String producerLabel,
      long loaded)
      throws Exception {
    DSLContext dsl = DSL.using(relayerPool, SQLDialect.POSTGRES);
    RelayerStore store = RelayerStore.create(StoreOptions.defaults());
    long deleted = 0;
    int runs = 0;
    double seconds;
    Producer.Run beside;
    try (RelayerDispatcher dispatcher =
            RelayerDispatcher.builder(store, dsl)
                .transport(new ProbeTransport(new DeliveryProbe(), 1000))
                .build();
        RelayerMaintenance maintenance = RelayerMaintenance.create(dispatcher, options)) {
      beside = Producer.start(producerPool, context.options().producers(), rate);
      long start = System.nanoTime();
      CleanupResult result;
      do {
        result = maintenance.cleanupOnce();
        deleted += result.deadDeleted() + result.inboxDeleted();
        runs++;
      } while (!result.drained());
      seconds = (System.nanoTime() - start) / 1e9;
      beside.stop();
    }
    check(context, context.database(), deleted, loaded);
    context.record(key + ".rows", label, "rows/s", deleted / seconds);
    context.record(key + ".seconds", "  time to drain", "s", seconds);
    context.record(key + ".runs", "  cleanupOnce() runs (5 s budget each)", "runs", runs);
    context.record("producer." + key + ".msgs", producerLabel, "msg/s", beside.rate());
    context.record(
        "producer." + key + ".p99", "  its commit latency p99", "ms", beside.p99Millis());
  }

  /**
   * Both deleters once over small tables, unmeasured, so that neither measured drain pays for the
   * JVM compiling its code path (Relayer's drain comes first and would otherwise pay alone).
   */
  private static void warmUp(ScenarioContext context, DataSource relayerPool) throws Exception {
    ScenarioDatabase db = context.database();
    load(context, WARM_UP_ROWS, WARM_UP_ROWS / 10);
    DSLContext dsl = DSL.using(relayerPool, SQLDialect.POSTGRES);
    try (RelayerDispatcher dispatcher =
            RelayerDispatcher.builder(RelayerStore.create(StoreOptions.defaults()), dsl)
                .transport(new ProbeTransport(new DeliveryProbe(), 1000))
                .build();
        RelayerMaintenance maintenance =
            RelayerMaintenance.create(dispatcher, MaintenanceOptions.defaults())) {
      while (!maintenance.cleanupOnce().drained()) {
        // until drained
      }
    }
    db.execute("TRUNCATE relayer_inbox, relayer_outbox_dead");
    load(context, WARM_UP_ROWS, WARM_UP_ROWS / 10);
    try (Connection c = db.connect()) {
      ctidLoop(c, "relayer_outbox_dead", "failed_at", Instant.now().minus(Duration.ofDays(30)));
      ctidLoop(c, "relayer_inbox", "processed_at", Instant.now().minus(Duration.ofDays(7)));
    }
    db.execute("TRUNCATE relayer_inbox, relayer_outbox_dead");
  }

  private static void check(ScenarioContext context, ScenarioDatabase db, long deleted, long loaded)
      throws SQLException {
    long left =
        db.queryLong(
            "SELECT (SELECT count(*) FROM relayer_inbox) + (SELECT count(*) FROM relayer_outbox_dead)");
    if (deleted != loaded || left != 0) {
      context.note("deleted " + deleted + " of " + loaded + " rows, " + left + " left");
    }
  }

  /** Loads both tables past retention, server-side, then settles them. */
  private static void load(ScenarioContext context, long inbox, long dead) throws SQLException {
    ScenarioDatabase db = context.database();
    long start = System.nanoTime();
    // Loading into the indexes row by row (random message ids) takes many times longer than
    // building them afterwards; the tables end up the same, with the schema's own names.
    db.execute(
        "ALTER TABLE relayer_inbox DROP CONSTRAINT relayer_inbox_pkey",
        "DROP INDEX relayer_inbox_processed_at_idx",
        "ALTER TABLE relayer_outbox_dead DROP CONSTRAINT relayer_outbox_dead_pkey",
        "DROP INDEX relayer_outbox_dead_failed_at_idx");
    db.execute(
        "INSERT INTO relayer_inbox (consumer, message_id, processed_at)"
            + " SELECT 'consumer-' || (g % 8), gen_random_uuid(),"
            + " now() - interval '9 days' + g * (interval '1 day' / "
            + inbox
            + ")"
            + " FROM generate_series(1, "
            + inbox
            + ") g",
        "INSERT INTO relayer_outbox_dead (id, message_id, transport, destination, message_type,"
            + " body, created_at, attempts, last_error, failed_at, reason, error_fingerprint)"
            + " SELECT g, gen_random_uuid(), 'memory', 'orders', 'OrderPlaced',"
            + " convert_to(repeat('x', 256), 'UTF8'), now() - interval '32 days', 10,"
            + " 'connection refused', now() - interval '32 days' + g * (interval '1 day' / "
            + dead
            + "),"
            + " 'max-attempts', 'f00d'"
            + " FROM generate_series(1, "
            + dead
            + ") g");
    db.execute(
        "ALTER TABLE relayer_inbox ADD CONSTRAINT relayer_inbox_pkey"
            + " PRIMARY KEY (consumer, message_id)",
        "CREATE INDEX relayer_inbox_processed_at_idx ON relayer_inbox (processed_at)",
        "ALTER TABLE relayer_outbox_dead ADD CONSTRAINT relayer_outbox_dead_pkey PRIMARY KEY (id)",
        "CREATE INDEX relayer_outbox_dead_failed_at_idx ON relayer_outbox_dead (failed_at)");
    db.settle("relayer_inbox");
    db.settle("relayer_outbox_dead");
    context.progress(
        String.format(
            "loaded %d inbox and %d dead rows in %.1f s",
            inbox, dead, (System.nanoTime() - start) / 1e9));
  }

  /** PostgreSQL's own batched delete, until a batch comes back short; returns rows deleted. */
  private static long ctidLoop(Connection c, String table, String timestamp, Instant cutoff)
      throws SQLException {
    long total = 0;
    try (PreparedStatement delete =
        c.prepareStatement(
            "DELETE FROM "
                + table
                + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM "
                + table
                + " WHERE "
                + timestamp
                + " < ? LIMIT "
                + ANCHOR_BATCH
                + "))")) {
      delete.setTimestamp(1, Timestamp.from(cutoff));
      int n;
      do {
        n = delete.executeUpdate();
        total += n;
      } while (n >= ANCHOR_BATCH);
    }
    return total;
  }

  /** Producer threads writing one outbox row per transaction. */
  static final class Producer {

    private Producer() {}

    /** Flat out for {@code window}; returns commits per second. */
    static double flatOut(DataSource pool, int threads, Duration window) throws Exception {
      Run run = start(pool, threads, 0);
      Thread.sleep(window.toMillis());
      run.stop();
      return run.rate();
    }

    /** Starts {@code threads} producers at {@code rate} commits per second in all (0: flat out). */
    static Run start(DataSource pool, int threads, double rate) {
      return new Run(pool, threads, rate);
    }

    static final class Run {
      private final AtomicBoolean stop = new AtomicBoolean();
      private final List<Thread> workers = new ArrayList<>();
      private final List<long[]> latencies = new ArrayList<>();
      private final int[] counts;
      private final long started = System.nanoTime();
      private long stopped;
      private volatile Exception failure;

      Run(DataSource pool, int threads, double rate) {
        counts = new int[threads];
        long interval = rate <= 0 ? 0 : (long) (threads * 1e9 / rate);
        for (int t = 0; t < threads; t++) {
          int me = t;
          long[] mine = new long[4_000_000];
          latencies.add(mine);
          Thread worker =
              new Thread(
                  () -> {
                    long next = System.nanoTime() + me * (interval / Math.max(1, threads));
                    while (!stop.get()) {
                      if (interval > 0) {
                        long wait = next - System.nanoTime();
                        if (wait > 0) {
                          LockSupport.parkNanos(wait);
                          continue;
                        }
                        next += interval;
                      }
                      long t0 = System.nanoTime();
                      try {
                        OutboxRows.insertInTransaction(pool, 1);
                      } catch (Exception e) {
                        failure = e;
                        return;
                      }
                      if (counts[me] < mine.length) {
                        mine[counts[me]] = System.nanoTime() - t0;
                      }
                      counts[me]++;
                    }
                  },
                  "bench-producer-" + t);
          workers.add(worker);
          worker.start();
        }
      }

      void stop() throws Exception {
        stop.set(true);
        for (Thread worker : workers) {
          worker.join();
        }
        stopped = System.nanoTime();
        if (failure != null) {
          throw failure;
        }
      }

      double rate() {
        long total = 0;
        for (int c : counts) {
          total += c;
        }
        return total / ((stopped - started) / 1e9);
      }

      double p99Millis() {
        int total = 0;
        for (int i = 0; i < counts.length; i++) {
          total += Math.min(counts[i], latencies.get(i).length);
        }
        long[] all = new long[total];
        int at = 0;
        for (int i = 0; i < counts.length; i++) {
          int n = Math.min(counts[i], latencies.get(i).length);
          System.arraycopy(latencies.get(i), 0, all, at, n);
          at += n;
        }
        if (all.length == 0) {
          return Double.NaN;
        }
        Arrays.sort(all);
        return all[(int) Math.min(all.length - 1, Math.ceil(all.length * 0.99) - 1)] / 1e6;
      }
    }
  }
}
