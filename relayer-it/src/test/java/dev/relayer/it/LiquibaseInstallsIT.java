package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.schema.liquibase.RelayerChangeLogParser;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.io.IOException;
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
import liquibase.parser.ChangeLogParser;
import liquibase.parser.ChangeLogParserFactory;
import liquibase.parser.core.xml.XMLChangeLogSAXParser;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Several installs of the changelog, with different schema and prefix, share one database and one
 * DATABASECHANGELOG: each applies, and each re-applies as a no-op. The changeset id carries the
 * substituted schema and prefix, so the installs never collide.
 */
class LiquibaseInstallsIT {

  /** The changesets of Relayer's changelog, in order: one per schema version. */
  private static final List<String> CHANGESETS =
      List.of(
          "relayer-1-create-tables",
          "relayer-2-operations",
          "relayer-3-lane-key-index",
          "relayer-4-idempotency-keys");

  /**
   * The DATABASECHANGELOG rows of the given installs ({@code schema=… prefix=…}), each install's
   * changesets in order.
   */
  private static String[] executed(String... installs) {
    List<String> rows = new java.util.ArrayList<>();
    for (String install : installs) {
      for (String changeset : CHANGESETS) {
        rows.add(changeset + " " + install + " | relayer | " + CHANGELOG_PATH + " | EXECUTED");
      }
    }
    return rows.toArray(String[]::new);
  }

  private static final String CHANGELOG_PATH = RelayerSchemaInstaller.CHANGELOG;

  /** A fresh database per test: DATABASECHANGELOG starts empty in each. */
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
  void threeInstallsInOneDatabaseEachApplyAndReapplyAsANoOp() throws SQLException {
    List<SchemaOptions> installs =
        List.of(
            SchemaOptions.defaults(),
            SchemaOptions.of("my\"Schema X", "Ü-x_"),
            SchemaOptions.of("billing", ""));

    installs.forEach(options -> RelayerSchemaInstaller.applyChangelog(db.dataSource(), options));
    List<String> applied = changelogRows();

    assertThat(applied)
        .containsExactly(
            executed(
                "schema=public prefix=relayer_",
                "schema=my\"Schema X prefix=Ü-x_",
                "schema=billing prefix="));
    assertThat(relayerTables())
        .containsExactly(
            "billing.idempotency_keys",
            "billing.inbox",
            "billing.leases",
            "billing.operations",
            "billing.outbox",
            "billing.outbox_dead",
            "my\"Schema X.Ü-x_idempotency_keys",
            "my\"Schema X.Ü-x_inbox",
            "my\"Schema X.Ü-x_leases",
            "my\"Schema X.Ü-x_operations",
            "my\"Schema X.Ü-x_outbox",
            "my\"Schema X.Ü-x_outbox_dead",
            "public.relayer_idempotency_keys",
            "public.relayer_inbox",
            "public.relayer_leases",
            "public.relayer_operations",
            "public.relayer_outbox",
            "public.relayer_outbox_dead");
    List<String> checksumsAndTimes = changelogChecksumsAndTimes();

    installs.forEach(options -> RelayerSchemaInstaller.applyChangelog(db.dataSource(), options));

    assertThat(changelogRows()).isEqualTo(applied);
    assertThat(changelogChecksumsAndTimes()).isEqualTo(checksumsAndTimes);
    assertThat(relayerTables()).hasSize(18);
  }

  /**
   * Liquibase 4.33 remembers per JVM that a URL was up to date with a changelog path, whatever the
   * parameters: a new install after an up-to-date one is skipped silently unless that memory is
   * cleared, as {@link RelayerSchemaInstaller} does and docs/deploying-the-schema.md tells Java API
   * users to do. If Liquibase ever keys that memory by parameters, the first half of this test
   * fails and the workaround can go.
   */
  @Test
  void newInstallAfterAnUpToDateOneInTheSameJvmNeedsLiquibasesFastCheckCleared() throws Exception {
    String[] first = {"relayer.schema", "first", "relayer.prefix", "a_"};
    String[] second = {"relayer.schema", "second", "relayer.prefix", "b_"};
    updateKeepingFastCheck(CHANGELOG_PATH, first);
    updateKeepingFastCheck(CHANGELOG_PATH, first); // up to date: Liquibase remembers that

    updateKeepingFastCheck(CHANGELOG_PATH, second);
    assertThat(relayerTables()).noneMatch(table -> table.startsWith("second."));

    update(CHANGELOG_PATH, second);
    assertThat(relayerTables()).contains("second.b_outbox", "second.b_leases");

    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SchemaOptions.of("third", "c_"));
    assertThat(relayerTables()).contains("third.c_outbox", "third.c_leases");
    assertThat(changelogRows()).hasSize(3 * CHANGESETS.size());
  }

  /**
   * Installs made before {@link RelayerChangeLogParser} existed were parsed by Liquibase's own XML
   * parser; with Relayer's parser the same install is up to date: same id, same checksum, nothing
   * runs again.
   */
  @Test
  void installParsedByLiquibasesOwnParserIsUpToDateWithRelayersParser() throws Exception {
    String[] parameters = {"relayer.schema", "my\"Schema X", "relayer.prefix", "Ü-x_"};
    ChangeLogParserFactory parsers = ChangeLogParserFactory.getInstance();
    ChangeLogParser relayers = parsers.getParser(CHANGELOG_PATH, new ClassLoaderResourceAccessor());
    assertThat(relayers).isInstanceOf(RelayerChangeLogParser.class);
    parsers.unregister(relayers);
    try {
      assertThat(parsers.getParser(CHANGELOG_PATH, new ClassLoaderResourceAccessor()))
          .isExactlyInstanceOf(XMLChangeLogSAXParser.class);
      update(CHANGELOG_PATH, parameters);
    } finally {
      parsers.register(relayers);
    }
    List<String> checksumsAndTimes = changelogChecksumsAndTimes();

    update(CHANGELOG_PATH, parameters);

    assertThat(changelogChecksumsAndTimes()).isEqualTo(checksumsAndTimes);
    assertThat(changelogRows()).containsExactly(executed("schema=my\"Schema X prefix=Ü-x_"));
  }

  @Test
  void changelogWithoutParametersInstallsTheDefaults() throws Exception {
    applyWithoutParameters();

    assertThat(changelogRows()).containsExactly(executed("schema=public prefix=relayer_"));
    assertThat(relayerTables()).contains("public.relayer_outbox", "public.relayer_leases");

    // The same install named explicitly is the same changeset: nothing runs again.
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SchemaOptions.defaults());
    assertThat(changelogRows()).hasSize(CHANGESETS.size());
  }

  @Test
  void applicationChangelogCanIncludeRelayersAndSetItsParameters() throws Exception {
    update("db/changelog/app-master.xml");
    update("db/changelog/app-master.xml");

    assertThat(changelogRows()).containsExactly(executed("schema=app_messaging prefix=app_"));
    assertThat(relayerTables())
        .containsExactly(
            "app_messaging.app_idempotency_keys",
            "app_messaging.app_inbox",
            "app_messaging.app_leases",
            "app_messaging.app_operations",
            "app_messaging.app_outbox",
            "app_messaging.app_outbox_dead");
  }

  @Test
  void invalidParametersFailValidationBeforeAnythingIsCreated() throws SQLException {
    String prefix = "é".repeat(18);

    assertThatThrownBy(
            () -> update(CHANGELOG_PATH, "relayer.schema", "messaging", "relayer.prefix", prefix))
        .isInstanceOf(LiquibaseException.class)
        .hasMessageContaining(prefix + "outbox_dead_message_id_check\" is 64 bytes");

    assertThat(relayerTables()).isEmpty();
    assertThat(
            Jdbc.rows(
                db.dataSource(), "SELECT nspname FROM pg_namespace WHERE nspname = 'messaging'"))
        .isEmpty();
    assertThat(changelogRows()).isEmpty();
  }

  @Test
  void parameterSetWithoutAValueFailsValidationInsteadOfNamingTablesAfterThePlaceholder()
      throws SQLException {
    assertThatThrownBy(
            () -> update(CHANGELOG_PATH, "relayer.schema", "messaging", "relayer.prefix", null))
        .isInstanceOf(LiquibaseException.class)
        .hasMessageContaining("relayer.prefix is '${relayer.prefix}'")
        .hasMessageContaining("not substituted");

    assertThat(relayerTables()).isEmpty();
    assertThat(changelogRows()).isEmpty();
  }

  @Test
  void liquibaseCommandLineAppliesTwoInstallsWithParametersIncludingAnEmptyPrefix()
      throws Exception {
    assertThat(liquibaseCli("-Drelayer.schema=messaging", "-Drelayer.prefix=orders_")).isZero();
    assertThat(liquibaseCli("-Drelayer.schema=my\"Schema X", "-Drelayer.prefix=")).isZero();
    assertThat(liquibaseCli("-Drelayer.schema=messaging", "-Drelayer.prefix=orders_")).isZero();
    assertThat(liquibaseCli("-Drelayer.schema=my\"Schema X", "-Drelayer.prefix=")).isZero();

    assertThat(changelogRows())
        .containsExactly(
            executed("schema=messaging prefix=orders_", "schema=my\"Schema X prefix="));
    assertThat(relayerTables())
        .containsExactly(
            "messaging.orders_idempotency_keys",
            "messaging.orders_inbox",
            "messaging.orders_leases",
            "messaging.orders_operations",
            "messaging.orders_outbox",
            "messaging.orders_outbox_dead",
            "my\"Schema X.idempotency_keys",
            "my\"Schema X.inbox",
            "my\"Schema X.leases",
            "my\"Schema X.operations",
            "my\"Schema X.outbox",
            "my\"Schema X.outbox_dead");
  }

  /** {@code liquibase update} of Relayer's changelog with {@code -D} parameters; its exit code. */
  private int liquibaseCli(String... parameters) throws IOException, InterruptedException {
    LiquibaseCli.Result result = LiquibaseCli.update(db, CHANGELOG_PATH, List.of(), parameters);
    if (result.exitCode() != 0) {
      System.err.println(result.output());
    }
    return result.exitCode();
  }

  private void applyWithoutParameters() throws Exception {
    update(CHANGELOG_PATH);
  }

  /**
   * Liquibase's Java API, as docs/deploying-the-schema.md shows it: clear Liquibase's up-to-date
   * memory, then {@code update} with the given changelog parameters (name, value, ...).
   */
  private void update(String changelog, String... parameters) throws Exception {
    Scope.getCurrentScope().getSingleton(FastCheckService.class).clearCache();
    updateKeepingFastCheck(changelog, parameters);
  }

  /** {@code update} without clearing Liquibase's up-to-date memory first. */
  private void updateKeepingFastCheck(String changelog, String... parameters) throws Exception {
    System.setProperty("liquibase.analytics.enabled", "false");
    try (Connection connection = db.connect()) {
      Database database =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(connection));
      try (Liquibase liquibase =
          new Liquibase(changelog, new ClassLoaderResourceAccessor(), database)) {
        for (int i = 0; i < parameters.length; i += 2) {
          liquibase.setChangeLogParameter(parameters[i], parameters[i + 1]);
        }
        liquibase.update(new Contexts(), new LabelExpression());
      }
    }
  }

  private List<String> changelogRows() throws SQLException {
    return Jdbc.rows(
        db.dataSource(),
        "SELECT id, author, filename, exectype FROM databasechangelog ORDER BY orderexecuted");
  }

  private List<String> changelogChecksumsAndTimes() throws SQLException {
    return Jdbc.rows(
        db.dataSource(),
        "SELECT id, md5sum, dateexecuted, orderexecuted, deployment_id FROM databasechangelog"
            + " ORDER BY orderexecuted");
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
