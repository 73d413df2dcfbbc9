package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.Scope;
import liquibase.changelog.FastCheckService;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.LiquibaseException;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A changelog parameter whose value refers to itself ({@code x${relayer.schema}}), or two that
 * refer to each other, would make Liquibase expand the changeset forever. Set in every way
 * Liquibase takes parameters, such a value fails with Relayer's validation message before anything
 * is created, and never with a {@link StackOverflowError}.
 */
class LiquibaseSelfReferenceIT {

  private static final String CHANGELOG = RelayerSchemaInstaller.CHANGELOG;

  private static final String SCHEMA_MESSAGE =
      "relayer.schema is 'x${relayer.schema}': it must not contain '${'";

  private TestDatabase db;

  @BeforeEach
  void createDatabase() {
    db = TestDatabase.create();
  }

  @AfterEach
  void dropDatabase() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void selfReferencingValuesThroughTheJavaApiFailValidationBeforeAnythingIsCreated()
      throws Exception {
    assertThatThrownBy(() -> update(CHANGELOG, "x${relayer.schema}", "x_"))
        .isInstanceOf(LiquibaseException.class)
        .hasMessageContaining(SCHEMA_MESSAGE);
    assertThatThrownBy(() -> update(CHANGELOG, "messaging", "p${relayer.prefix}_"))
        .isInstanceOf(LiquibaseException.class)
        .hasMessageContaining("relayer.prefix is 'p${relayer.prefix}_': it must not contain '${'");
    assertThatThrownBy(() -> update(CHANGELOG, "${relayer.prefix}", "${relayer.schema}"))
        .isInstanceOf(LiquibaseException.class)
        .hasMessageContaining("relayer.schema is '${relayer.prefix}': it must not contain '${'")
        .hasMessageContaining("relayer.prefix is '${relayer.schema}': it must not contain '${'");

    assertNothingCreated();
  }

  @Test
  void selfReferencingPropertyOfAnIncludingChangelogFailsValidationBeforeAnythingIsCreated()
      throws Exception {
    assertThatThrownBy(() -> update("db/changelog/app-master-self-reference.xml", null, null))
        .isInstanceOf(LiquibaseException.class)
        .hasMessageContaining(SCHEMA_MESSAGE);

    assertNothingCreated();
  }

  @Test
  void selfReferencingCommandLineParameterFailsWithTheValidationMessage() throws Exception {
    LiquibaseCli.Result result =
        LiquibaseCli.update(
            db, CHANGELOG, List.of(), "-Drelayer.schema=x${relayer.schema}", "-Drelayer.prefix=x_");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.output()).contains(SCHEMA_MESSAGE).doesNotContain("StackOverflowError");
    assertNothingCreated();
  }

  @Test
  void selfReferencingJvmSystemPropertyFailsWithTheValidationMessage() throws Exception {
    LiquibaseCli.Result result =
        LiquibaseCli.update(db, CHANGELOG, List.of("-Drelayer.schema=x${relayer.schema}"));

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.output()).contains(SCHEMA_MESSAGE).doesNotContain("StackOverflowError");
    assertNothingCreated();
  }

  @Test
  void aValidInstallAppliesAfterARejectedOne() throws Exception {
    assertThatThrownBy(() -> update(CHANGELOG, "x${relayer.schema}", "x_"))
        .isInstanceOf(LiquibaseException.class);

    update(CHANGELOG, "messaging", "x_");

    assertThat(relayerTables())
        .containsExactly(
            "messaging.x_idempotency_keys",
            "messaging.x_inbox",
            "messaging.x_leases",
            "messaging.x_operations",
            "messaging.x_outbox",
            "messaging.x_outbox_dead");
    assertThat(changelogIds())
        .containsExactly(
            "relayer-1-create-tables schema=messaging prefix=x_",
            "relayer-2-operations schema=messaging prefix=x_",
            "relayer-3-lane-key-index schema=messaging prefix=x_",
            "relayer-4-idempotency-keys schema=messaging prefix=x_");
  }

  /**
   * Liquibase's Java API, as docs/deploying-the-schema.md shows it; a {@code null} schema or prefix
   * is not set.
   */
  private void update(String changelog, String schema, String prefix) throws Exception {
    System.setProperty("liquibase.analytics.enabled", "false");
    Scope.getCurrentScope().getSingleton(FastCheckService.class).clearCache();
    try (Connection connection = db.connect()) {
      Database database =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(connection));
      try (Liquibase liquibase =
          new Liquibase(changelog, new ClassLoaderResourceAccessor(), database)) {
        if (schema != null) {
          liquibase.setChangeLogParameter("relayer.schema", schema);
        }
        if (prefix != null) {
          liquibase.setChangeLogParameter("relayer.prefix", prefix);
        }
        liquibase.update(new Contexts(), new LabelExpression());
      }
    }
  }

  private void assertNothingCreated() throws SQLException {
    assertThat(relayerTables()).isEmpty();
    assertThat(
            Jdbc.rows(
                db.dataSource(),
                "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%'"
                    + " AND nspname NOT IN ('public', 'information_schema')"))
        .isEmpty();
    assertThat(changelogIds()).isEmpty();
  }

  /** The ids in DATABASECHANGELOG; none when Liquibase did not get as far as creating it. */
  private List<String> changelogIds() throws SQLException {
    if (Jdbc.rows(db.dataSource(), "SELECT to_regclass('databasechangelog')")
        .equals(List.of("null"))) {
      return List.of();
    }
    return Jdbc.rows(db.dataSource(), "SELECT id FROM databasechangelog ORDER BY orderexecuted");
  }

  private List<String> relayerTables() throws SQLException {
    return Jdbc.rows(
        db.dataSource(),
        "SELECT n.nspname || '.' || c.relname FROM pg_class c"
            + " JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
            + " AND c.relname NOT LIKE 'databasechangelog%'"
            + " ORDER BY n.nspname || '.' || c.relname COLLATE \"C\"");
  }
}
