package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.schema.SchemaNames;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Installing again, by script or by changelog, keeps the tables and every row in them. */
class ReapplyIT {

  private static TestDatabase db;

  @BeforeAll
  static void createDatabase() {
    db = TestDatabase.create();
  }

  @AfterAll
  static void dropDatabase() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void runningTheScriptAgainAndThenTheChangelogKeepsExistingRows() throws SQLException {
    SchemaOptions options = SchemaOptions.of("reapply by script", "Ü-x_");
    RelayerSchemaInstaller.applyScript(db.dataSource(), options);
    List<String> before = insertOneRowPerTable(options);

    RelayerSchemaInstaller.applyScript(db.dataSource(), options);
    assertThat(rowsOfEveryTable(options)).isEqualTo(before);

    // The changelog's first run on tables the script made: IF NOT EXISTS, so nothing changes.
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), options);
    assertThat(rowsOfEveryTable(options)).isEqualTo(before);
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), options);
    assertThat(rowsOfEveryTable(options)).isEqualTo(before);

    assertIdentityContinues(options, 2);
  }

  @Test
  void runningTheChangelogAgainKeepsExistingRowsAndRecordsOneChangeset() throws SQLException {
    SchemaOptions options = SchemaOptions.of("reapply_by_changelog", "orders_");
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), options);
    List<String> before = insertOneRowPerTable(options);

    RelayerSchemaInstaller.applyChangelog(db.dataSource(), options);
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), options);

    assertThat(rowsOfEveryTable(options)).isEqualTo(before);
    assertThat(
            Jdbc.number(
                db.dataSource(),
                "SELECT count(*) FROM databasechangelog WHERE id = ?",
                "relayer-1-create-tables schema=reapply_by_changelog prefix=orders_"))
        .isEqualTo(1);
    assertIdentityContinues(options, 2);
  }

  @Test
  void runningTheScriptOverAChangelogInstallKeepsExistingRows() throws SQLException {
    SchemaOptions options = SchemaOptions.of("reapply_mixed", "");
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), options);
    List<String> before = insertOneRowPerTable(options);

    RelayerSchemaInstaller.applyScript(db.dataSource(), options);
    RelayerSchemaInstaller.applyScript(db.dataSource(), options);

    assertThat(rowsOfEveryTable(options)).isEqualTo(before);
  }

  private static List<String> insertOneRowPerTable(SchemaOptions options) throws SQLException {
    SchemaNames n = options.names();
    Jdbc.execute(
        db.dataSource(),
        "INSERT INTO "
            + n.qualified(SchemaNames.OUTBOX)
            + " (message_id, transport, destination, message_type, headers, body, ordering_key,"
            + " lane) VALUES ('6f1c1f57-3d0b-4c55-9d3a-2c4f0f3e4a01', 'memory', 'orders',"
            + " 'order.created', '{\"traceparent\":\"00-abc\"}', '\\x0102', 'customer-7', 3);"
            + "INSERT INTO "
            + n.qualified(SchemaNames.OUTBOX_DEAD)
            + " (id, message_id, transport, destination, message_type, body, created_at,"
            + " failed_at, reason) VALUES (41, '6f1c1f57-3d0b-4c55-9d3a-2c4f0f3e4a02', 'memory',"
            + " 'orders', 'order.created', '\\x03', now(), now(), 'max attempts');"
            + "INSERT INTO "
            + n.qualified(SchemaNames.INBOX)
            + " (consumer, message_id) VALUES ('billing', '6f1c1f57-3d0b-4c55-9d3a-2c4f0f3e4a03');"
            + "INSERT INTO "
            + n.qualified(SchemaNames.LEASES)
            + " (name, owner, expires_at) VALUES ('lane/0', 'instance-1', now());");
    List<String> rows = rowsOfEveryTable(options);
    assertThat(rows).hasSize(4);
    return rows;
  }

  private static List<String> rowsOfEveryTable(SchemaOptions options) throws SQLException {
    SchemaNames n = options.names();
    return List.of(
            "SELECT 'outbox', id, message_id, headers::text, encode(body, 'hex'), lane, created_at"
                + " FROM "
                + n.qualified(SchemaNames.OUTBOX),
            "SELECT 'dead', id, message_id, reason, failed_at FROM "
                + n.qualified(SchemaNames.OUTBOX_DEAD),
            "SELECT 'inbox', consumer, message_id, processed_at FROM "
                + n.qualified(SchemaNames.INBOX),
            "SELECT 'leases', name, owner, expires_at FROM " + n.qualified(SchemaNames.LEASES))
        .stream()
        .flatMap(
            sql -> {
              try {
                return Jdbc.rows(db.dataSource(), sql).stream();
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            })
        .toList();
  }

  /** The identity sequence was not reset: the next row gets the next id. */
  private static void assertIdentityContinues(SchemaOptions options, long expectedId)
      throws SQLException {
    assertThat(
            Jdbc.number(
                db.dataSource(),
                "INSERT INTO "
                    + options.names().qualified(SchemaNames.OUTBOX)
                    + " (message_id, transport, destination, message_type, body)"
                    + " VALUES (gen_random_uuid(), 'memory', 'orders', 'order.created', '\\x00')"
                    + " RETURNING id"))
        .isEqualTo(expectedId);
  }
}
