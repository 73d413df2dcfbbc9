package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.schema.SchemaNames;
import dev.relayer.schema.SchemaOptions;
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
 * its serial marker gets one.
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

  /** The store's health read now with {@code rowLimit}; adds the statements it ran, inlined. */
  private OutboxHealth read(long rowLimit, List<String> statements) {
    HealthQuery query =
        new HealthQuery(Instant.now(), Duration.ofSeconds(10), Duration.ofHours(1), rowLimit);
    return fx.store.health(recording(fx.dsl, statements), query);
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
    for (String line : analyzed.split("\n")) {
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
