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
import org.jooq.DSLContext;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.jooq.Query;
import org.jooq.impl.DefaultExecuteListenerProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The health read scans the whole outbox on a schedule, and its plan stays serial: on a server told
 * that parallel workers cost nothing, the statement the store runs is planned without a {@code
 * Gather}, while the same statement without its serial marker gets one. On a real server.
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
            + " FROM generate_series(1, 5000)",
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
    HealthQuery query = new HealthQuery(Instant.now(), Duration.ofSeconds(10), Duration.ofHours(1));

    OutboxHealth health = fx.store.health(recording(fx.dsl, statements), query);

    assertThat(health.backlog().eligible()).isEqualTo(5000);
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
