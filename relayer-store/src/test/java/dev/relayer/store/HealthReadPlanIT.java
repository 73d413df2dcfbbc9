package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.schema.SchemaNames;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.health.HealthQuery;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.health.OutboxHealth;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Passes;
import dev.relayer.store.pass.SweepPass;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.jooq.Query;
import org.jooq.impl.DefaultExecuteListenerProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The health read's plan, on a real server: it visits at most its row limit of outbox rows however
 * many there are, and it stays serial: on a server told that parallel workers cost nothing, the
 * statement the store runs is planned without a {@code Gather}, while the same statement without
 * its serial marker gets one. After rows are claimed and deleted, the first read that passes their
 * primary-key entries visits the heap for each; once a sweep pass's bounds read has passed them,
 * the health read skips them.
 */
class HealthReadPlanIT {

  /** Planner settings under which any parallel-safe scan of the outbox is planned in parallel. */
  private static final String[] PARALLEL_FOR_NOTHING = {
    "SET parallel_setup_cost = 0",
    "SET parallel_tuple_cost = 0",
    "SET min_parallel_table_scan_size = 0",
    "SET max_parallel_workers_per_gather = 2"
  };

  StoreFixture fx;

  @BeforeEach
  void setUp() {
    fx = new StoreFixture(SchemaOptions.of("health read plan", "hp_"));
    fx.execute(
        "INSERT INTO %s (message_id, transport, destination, message_type, body)"
            + " SELECT gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', '\\x00'"
            + " FROM generate_series(1, 20000)",
        SchemaNames.OUTBOX);
    fx.execute("ANALYZE %s", SchemaNames.OUTBOX);
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  @Test
  void theHealthReadIsPlannedWithoutParallelWorkersWhereTheSameScanWouldGetThem() throws Exception {
    List<String> statements = new ArrayList<>();

    OutboxHealth health = read(20_000, statements);

    assertThat(health.backlog().eligible()).isEqualTo(20_000);
    assertThat(statements).hasSize(1);
    String read = statements.get(0);
    String marker = "\"current_schema\"()";
    assertThat(read).contains(marker);
    try (Connection connection = fx.connect()) {
      for (String setting : PARALLEL_FOR_NOTHING) {
        execute(connection, setting);
      }
      assertThat(plan(connection, read)).as("the health read's plan").doesNotContain("Gather");
      assertThat(plan(connection, read.replace(marker, "NULL")))
          .as("the same read without its serial marker")
          .contains("Gather");
    }
  }

  @Test
  void theReadVisitsItsRowLimitOfOutboxRowsNotTheWholeOutbox() throws Exception {
    List<String> statements = new ArrayList<>();

    OutboxHealth health = read(500, statements);

    assertThat(health.backlog().eligible()).isEqualTo(500);
    assertThat(health.rowLimitReached()).isTrue();
    try (Connection connection = fx.connect()) {
      String analyzed = plan(connection, "(ANALYZE) " + statements.get(0));
      assertThat(outboxRowsVisited(analyzed)).as(analyzed).isPositive().isLessThanOrEqualTo(500);
    }
  }

  @Test
  void afterTheSweepersBoundsReadTheHealthReadSkipsTheEntriesOfDeletedRows() throws Exception {
    List<String> statements = new ArrayList<>();
    read(500, statements);
    String read = statements.get(0);
    String outbox = fx.store.names().qualified(SchemaNames.OUTBOX);
    long lowest = fx.dsl.fetchOne("SELECT min(id) FROM " + outbox).get(0, Long.class);

    // Rows claimed (a new version each) and deleted, as direct dispatch does, and then read by the
    // health read first: it visits the heap for each entry.
    claimAndDelete(lowest + 7_000);
    long first = buffers(read);
    // Rows deleted and then read by a sweep pass's bounds first, as the maintenance worker does.
    claimAndDelete(lowest + 14_000);
    fx.dsl.transaction(
        tx -> {
          SweepPass pass =
              Passes.of(fx.store)
                  .sweep(tx.dsl(), new LeaseRequest("sweeper", "a", Duration.ofMinutes(1)));
          assertThat(pass.bounds(0).lowest()).hasValue(lowest + 14_000);
          pass.end();
        });
    long afterSweep = buffers(read);

    assertThat(first).as("buffers of the first read past 7,000 deleted rows").isGreaterThan(7_000);
    assertThat(afterSweep)
        .as("buffers of the health read past 7,000 more, after the sweeper's bounds")
        .isLessThan(first / 5);
  }

  /** Claims the pending rows below {@code id} (a new row version each), then deletes them. */
  private void claimAndDelete(long id) {
    fx.execute(
        "UPDATE %s SET attempts = attempts + 1, last_error = 'in flight' WHERE id < " + id,
        SchemaNames.OUTBOX);
    fx.execute("DELETE FROM %s WHERE id < " + id, SchemaNames.OUTBOX);
  }

  /**
   * The shared buffers (hit and read) an {@code EXPLAIN (ANALYZE, BUFFERS)} of {@code sql} used.
   */
  private long buffers(String sql) throws SQLException {
    try (Connection connection = fx.connect()) {
      Matcher m =
          Pattern.compile("Buffers: shared(?: hit=(\\d+))?(?: read=(\\d+))?")
              .matcher(plan(connection, "(ANALYZE, BUFFERS) " + sql));
      assertThat(m.find()).as("a Buffers line").isTrue();
      return (m.group(1) == null ? 0 : Long.parseLong(m.group(1)))
          + (m.group(2) == null ? 0 : Long.parseLong(m.group(2)));
    }
  }

  /** The store's health read now with {@code rowLimit}; adds the statements it ran, inlined. */
  private OutboxHealth read(long rowLimit, List<String> statements) {
    HealthQuery query =
        new HealthQuery(Instant.now(), Duration.ofSeconds(10), Duration.ofHours(1), rowLimit);
    return HealthReads.of(fx.store).health(recording(fx.dsl, statements), query);
  }

  /**
   * The rows the scans of the outbox table (not the dead table) in an {@code EXPLAIN ANALYZE} plan
   * returned or removed by their filters, over all their loops.
   */
  private static long outboxRowsVisited(String analyzed) {
    Pattern scan = Pattern.compile(" on hp_outbox\\b(?!_).*actual .*rows=(\\d+) loops=(\\d+)");
    Pattern removed = Pattern.compile("Rows Removed by (?:Filter|Index Recheck): (\\d+)");
    long visited = 0;
    boolean inOutboxScan = false;
    for (String line : analyzed.split("\n", -1)) {
      Matcher node = scan.matcher(line);
      if (node.find()) {
        inOutboxScan = true;
        visited += Long.parseLong(node.group(1)) * Long.parseLong(node.group(2));
      } else if (line.contains("->")) {
        inOutboxScan = false;
      } else if (inOutboxScan) {
        Matcher filtered = removed.matcher(line);
        if (filtered.find()) {
          visited += Long.parseLong(filtered.group(1));
        }
      }
    }
    return visited;
  }

  /** A context over {@code dsl}'s data source that adds each statement it runs, inlined. */
  private static DSLContext recording(DSLContext dsl, List<String> statements) {
    ExecuteListener listener =
        new ExecuteListener() {
          @Override
          public void executeStart(ExecuteContext ctx) {
            Query query = ctx.query();
            if (query != null) {
              statements.add(ctx.configuration().dsl().renderInlined(query));
            }
          }
        };
    return dsl.configuration().derive(new DefaultExecuteListenerProvider(listener)).dsl();
  }

  private static String plan(Connection connection, String sql) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("EXPLAIN " + sql)) {
      while (rs.next()) {
        plan.append(rs.getString(1)).append('\n');
      }
    }
    return plan.toString();
  }

  private static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
