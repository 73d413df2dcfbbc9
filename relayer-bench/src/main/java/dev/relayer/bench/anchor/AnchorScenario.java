package dev.relayer.bench.anchor;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Payload;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.HdrHistogram.Histogram;

/**
 * Scenario 1, the anchors: what PostgreSQL itself does with Relayer's row shape, driven by pgbench
 * on a table created by Relayer's own DDL. Every other scenario's speed is a ratio to these
 * figures, measured in the same repetition.
 */
public final class AnchorScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "anchor";

  /** Key of the single-row enqueue rate at {@code clients} clients. */
  public static String enqueueOneKey(int clients) {
    return ID + ".enqueue1.c" + clients + ".msgs";
  }

  /** Key of the 10-row multi-row insert rate (messages/s) at {@code clients} clients. */
  public static String enqueueTenKey(int clients) {
    return ID + ".enqueue10.c" + clients + ".msgs";
  }

  /** Key of the claim-then-fenced-delete drain rate. */
  public static final String DRAIN_KEY = ID + ".drain.msgs";

  /** Key of the combined enqueue+drain rate. */
  public static final String COMBINED_KEY = ID + ".combined.msgs";

  /** Key of the combined rate with each enqueue in an explicit transaction. */
  public static final String COMBINED_TX_KEY = ID + ".combinedtx.msgs";

  private static final String ENQUEUE_ONE = "enqueue-1.sql";
  private static final String ENQUEUE_ONE_TX = "enqueue-1-tx.sql";
  private static final String ENQUEUE_TEN = "enqueue-10.sql";
  private static final String DRAIN = "drain.sql";
  private static final int DRAIN_BATCH = 100;

  private final Map<String, String> scripts =
      Map.of(
          ENQUEUE_ONE, resource(ENQUEUE_ONE),
          ENQUEUE_ONE_TX, resource(ENQUEUE_ONE_TX),
          ENQUEUE_TEN, resource(ENQUEUE_TEN),
          DRAIN, resource(DRAIN));

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "1. Anchors: pgbench with Relayer's row shape";
  }

  @Override
  public String description() {
    return String.join(
        "\n",
        "pgbench (`-M prepared`, `-j` = min(clients, nproc)) on `relayer_outbox` created by"
            + " `PostgreSqlOutboxSchema.createScript` (default schema and prefix), rows with a"
            + " 256-byte body and "
            + Payload.headersJson().length()
            + " bytes of headers JSON. The table is truncated between measurements.",
        "",
        "- **enqueue1**: one single-row `INSERT` per transaction (auto-commit).",
        "- **enqueue10**: one 10-row multi-row `INSERT` per transaction; rate in messages/s.",
        "- **drain**: the burn-down rows are loaded, `VACUUM ANALYZE`d and checkpointed; then"
            + " each pgbench transaction claims up to 100 eligible rows after the client's keyset"
            + " cursor (`FOR UPDATE SKIP LOCKED` CTE + `UPDATE … RETURNING`, rows sent to the"
            + " client; the cursor is the highest id claimed, back to 0 when a claim finds none)"
            + " and deletes them fenced by id and claim token, as two auto-commit transactions;"
            + " rate = rows deleted / pgbench's running time; latency per batch.",
        "- **combined**: single-row enqueue (`--producers` clients) and drain (`--drain-clients`"
            + " clients) run at the same time on an empty table for `--seconds`; rate = rows"
            + " enqueued and deleted / seconds (what is left is the backlog).",
        "- **combined, enqueue in BEGIN … COMMIT**: the same, each enqueue an explicit"
            + " transaction (`BEGIN`, the insert, `COMMIT`, each its own round trip; pgjdbc sends"
            + " `BEGIN` with the first statement, so an application transaction over JDBC makes"
            + " two).",
        "",
        "Scripts: `relayer-bench/src/main/resources/dev/relayer/bench/anchor/`.");
  }

  @Override
  public void run(ScenarioContext context) throws Exception {
    Pgbench pgbench =
        context
            .pgbench()
            .orElseThrow(() -> new IllegalStateException("the anchor scenario needs pgbench"));
    ScenarioDatabase db = context.database();
    BenchOptions options = context.options();
    db.installRelayerSchema();
    for (String script : List.of(ENQUEUE_ONE, ENQUEUE_TEN)) {
      int rowsPerTransaction = script.equals(ENQUEUE_ONE) ? 1 : 10;
      String name = script.equals(ENQUEUE_ONE) ? "enqueue1" : "enqueue10";
      for (int clients : options.clients()) {
        db.execute("TRUNCATE " + OutboxRows.TABLE);
        List<String> args = new ArrayList<>(common(clients));
        args.addAll(load(options));
        args.addAll(payloadVariables());
        args.addAll(List.of("-f", script));
        Pgbench.Outcome outcome = pgbench.run(db, scripts, args, true);
        String what =
            (rowsPerTransaction == 1 ? "single-row enqueue" : "10-row insert enqueue")
                + ", "
                + clients
                + " client"
                + (clients == 1 ? "" : "s");
        context.record(
            name + ".c" + clients + ".msgs", what, "msgs/s", outcome.tps() * rowsPerTransaction);
        recordLatencies(context, name + ".c" + clients, what + " (per transaction)", outcome);
        failures(context, what, outcome);
      }
    }
    drain(context, pgbench, db, options);
    combined(context, pgbench, db, options, ENQUEUE_ONE, "combined", "combined enqueue+drain");
    combined(
        context,
        pgbench,
        db,
        options,
        ENQUEUE_ONE_TX,
        "combinedtx",
        "combined, enqueue in BEGIN … COMMIT");
  }

  private void drain(ScenarioContext context, Pgbench pgbench, ScenarioDatabase db, BenchOptions o)
      throws Exception {
    db.execute("TRUNCATE " + OutboxRows.TABLE);
    OutboxRows.insertPending(db, o.rows());
    int clients = o.drainClients();
    // One transaction more than the rows need: a client whose cursor reaches the end spends one
    // claim finding nothing before it starts again from the lowest id.
    long perClient =
        (o.rows() + (long) DRAIN_BATCH * clients - 1) / ((long) DRAIN_BATCH * clients) + 1;
    List<String> args = new ArrayList<>(common(clients));
    args.addAll(List.of("-t", Long.toString(perClient)));
    args.addAll(drainScript());
    Pgbench.Outcome outcome = pgbench.run(db, scripts, args, true);
    long left = OutboxRows.count(db);
    long drained = o.rows() - left;
    String what = "claim+delete drain, 100-row batches, " + clients + " clients";
    context.record("drain.msgs", what, "msgs/s", drained / outcome.seconds());
    recordLatencies(context, "drain", what + " (per batch)", outcome);
    failures(context, what, outcome);
    if (left > 0) {
      context.note("drain: " + left + " of " + o.rows() + " rows were left after the run");
    }
  }

  private void combined(
      ScenarioContext context,
      Pgbench pgbench,
      ScenarioDatabase db,
      BenchOptions o,
      String enqueueScript,
      String key,
      String what)
      throws Exception {
    db.execute("TRUNCATE " + OutboxRows.TABLE);
    long seconds = Math.max(1, (long) Math.ceil(o.window().toMillis() / 1000.0));
    List<String> enqueueArgs = new ArrayList<>(common(o.producers()));
    enqueueArgs.addAll(List.of("-T", Long.toString(seconds)));
    enqueueArgs.addAll(payloadVariables());
    enqueueArgs.addAll(List.of("-f", enqueueScript));
    List<String> drainArgs = new ArrayList<>(common(o.drainClients()));
    drainArgs.addAll(List.of("-T", Long.toString(seconds)));
    drainArgs.addAll(drainScript());
    // Both pgbench processes start together; each waits on its own thread.
    ExecutorService waiters = Executors.newFixedThreadPool(2);
    Pgbench.Outcome enqueued;
    try {
      Future<Pgbench.Outcome> enqueue =
          waiters.submit(() -> pgbench.run(db, scripts, enqueueArgs, false));
      Future<Pgbench.Outcome> drain =
          waiters.submit(() -> pgbench.run(db, scripts, drainArgs, false));
      enqueued = enqueue.get();
      drain.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } finally {
      waiters.shutdownNow();
    }
    long backlog = OutboxRows.count(db);
    long drained = enqueued.transactions() - backlog;
    String clients = o.producers() + "+" + o.drainClients() + " clients";
    context.record(
        key + ".msgs", what + " (delivered), " + clients, "msgs/s", (double) drained / seconds);
    context.record(
        key + ".enqueue.msgs",
        what + ": enqueued, " + clients,
        "msgs/s",
        (double) enqueued.transactions() / seconds);
    context.record(key + ".backlog", what + ": rows left at the end", "rows", (double) backlog);
  }

  private static List<String> common(int clients) {
    int threads = Math.max(1, Math.min(clients, Runtime.getRuntime().availableProcessors()));
    return List.of(
        "-n", "-M", "prepared", "-c", Integer.toString(clients), "-j", Integer.toString(threads));
  }

  /** The drain script with each client's keyset cursor starting at 0. */
  private static List<String> drainScript() {
    return List.of("-D", "cursor=0", "-f", DRAIN);
  }

  private static List<String> load(BenchOptions options) {
    if (options.enqueueTransactions().isPresent()) {
      return List.of("-t", Integer.toString(options.enqueueTransactions().getAsInt()));
    }
    long seconds = Math.max(1, (long) Math.ceil(options.window().toMillis() / 1000.0));
    return List.of("-T", Long.toString(seconds));
  }

  private static List<String> payloadVariables() {
    return List.of("-D", "headers=" + Payload.headersJson(), "-D", "body=" + Payload.bodyHex());
  }

  private static void recordLatencies(
      ScenarioContext context, String key, String what, Pgbench.Outcome outcome) {
    outcome
        .latenciesMicros()
        .ifPresent(
            (Histogram h) -> {
              context.record(
                  key + ".p50", what + " p50", "ms", h.getValueAtPercentile(50) / 1000.0);
              context.record(
                  key + ".p99", what + " p99", "ms", h.getValueAtPercentile(99) / 1000.0);
            });
  }

  private static void failures(ScenarioContext context, String what, Pgbench.Outcome outcome) {
    if (outcome.failed() > 0) {
      context.note(what + ": " + outcome.failed() + " pgbench transactions failed");
    }
  }

  private static String resource(String name) {
    try (InputStream in = AnchorScenario.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
