package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@code relayer} command as a real process ({@code java -jar relayer-cli.jar}): exit codes,
 * stdout carrying only the script, errors as one line on stderr, and SQL that applies to a real
 * PostgreSQL, twice.
 */
class CliProcessIT {

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

  static Stream<Arguments> usageErrors() {
    return Stream.of(
        Arguments.of(
            List.of("db", "script", "--provider", "mysql"), "unsupported provider 'mysql'"),
        Arguments.of(
            List.of("db", "script", "--provider", "sqlserver"), "unsupported provider 'sqlserver'"),
        Arguments.of(
            List.of("db", "script", "--provider", "oracle"), "unsupported provider 'oracle'"),
        Arguments.of(List.of("db", "script"), "Missing required option: '--provider=<provider>'"),
        Arguments.of(List.of("db", "script", "--provider", "postgres", "--bogus"), "'--bogus'"),
        Arguments.of(
            List.of("db", "script", "--provider", "postgres", "--schema"),
            "Missing required parameter for option '--schema'"),
        Arguments.of(
            List.of("db", "script", "--provider"),
            "Missing required parameter for option '--provider'"),
        Arguments.of(
            List.of("db", "script", "--provider", "postgres", "--prefix", "p".repeat(36)),
            "\"" + "p".repeat(36) + "outbox_dead_message_id_check\" is 64 bytes in UTF-8"),
        Arguments.of(
            List.of("db", "script", "--provider", "postgres", "--prefix", "é".repeat(18)),
            "\"" + "é".repeat(18) + "outbox_dead_message_id_check\" is 64 bytes in UTF-8"),
        Arguments.of(
            List.of("db", "script", "--provider", "postgres", "--schema", ""),
            "schema must not be empty"),
        Arguments.of(
            List.of("db", "script", "--provider", "postgres", "--schema", "s".repeat(64)),
            "schema \"" + "s".repeat(64) + "\" is 64 bytes in UTF-8"),
        Arguments.of(List.of("db", "migrate"), "'migrate'"),
        Arguments.of(List.of(), "Missing required subcommand"));
  }

  @ParameterizedTest(name = "relayer {0}")
  @MethodSource("usageErrors")
  void usageErrorPrintsOneLineOnStderrNothingOnStdoutAndExits2(List<String> args, String expected)
      throws Exception {
    CliProcess run = CliProcess.relayer(args.toArray(String[]::new));

    assertThat(run.out()).as("stdout").isEmpty();
    assertThat(run.err().lines()).as("stderr").hasSize(1);
    assertThat(run.err()).startsWith("relayer").contains(expected).endsWith("\n");
    assertThat(run.exitCode()).as("exit code").isEqualTo(2);
  }

  @Test
  void nonAsciiArgumentsUnderAnAsciiLocaleAreRejectedNotMangled() throws Exception {
    CliProcess run =
        CliProcess.relayer(
            Map.of("LC_ALL", "C", "LANG", "C", "LC_CTYPE", "C"),
            "db",
            "script",
            "--provider",
            "postgres",
            "--prefix",
            "Ü-x_");

    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines())
        .containsExactly(
            "relayer: argument 6 contains characters that could not be decoded;"
                + " run with a UTF-8 locale (for example LC_ALL=C.UTF-8)");
    assertThat(run.exitCode()).isEqualTo(2);
  }

  @Test
  void helpPrintsUsageOnStdoutAndExits0() throws Exception {
    for (List<String> args :
        List.of(List.of("--help"), List.of("db", "--help"), List.of("db", "script", "--help"))) {
      CliProcess run = CliProcess.relayer(args.toArray(String[]::new));

      assertThat(run.exitCode()).isZero();
      assertThat(run.err()).isEmpty();
      assertThat(run.out()).startsWith("Usage: relayer");
    }
    assertThat(CliProcess.relayer("db", "script", "--help").out())
        .contains("--provider=<provider>", "--schema=<schema>", "--prefix=<prefix>");
  }

  @Test
  void theRunnableJarAloneInAnEmptyDirectoryPrintsTheScript(@TempDir Path empty) throws Exception {
    // The file the build installs as relayer-cli-<version>-all.jar, away from the checkout.
    Path jar = empty.resolve("relayer-cli-" + System.getProperty("relayer.version") + "-all.jar");
    Files.copy(CliProcess.jar(), jar);

    CliProcess run =
        CliProcess.run(
            List.of(
                CliProcess.java().toString(),
                "-jar",
                jar.getFileName().toString(),
                "db",
                "script",
                "--provider",
                "postgres"),
            Map.of("LC_ALL", "C.UTF-8"),
            empty);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).isEqualTo(PostgreSqlOutboxSchema.createScript(SchemaOptions.defaults()));
  }

  @Test
  void versionPrintsTheProjectVersionAndExits0() throws Exception {
    String expected = "relayer " + System.getProperty("relayer.version") + "\n";
    for (List<String> args : List.of(List.of("--version"), List.of("db", "script", "--version"))) {
      CliProcess run = CliProcess.relayer(args.toArray(String[]::new));

      assertThat(run.exitCode()).isZero();
      assertThat(run.err()).isEmpty();
      assertThat(run.out()).isEqualTo(expected);
    }
  }

  @Test
  void printedScriptIsExactlyTheGeneratorsAndAppliesTwice() throws Exception {
    CliProcess run =
        CliProcess.relayer(
            "db",
            "script",
            "--provider",
            "postgres",
            "--schema",
            "messaging",
            "--prefix",
            "orders_");

    assertThat(run.exitCode()).isZero();
    assertThat(run.err()).isEmpty();
    assertThat(run.out())
        .isEqualTo(PostgreSqlOutboxSchema.createScript(SchemaOptions.of("messaging", "orders_")));

    Jdbc.execute(db.dataSource(), run.out());
    Jdbc.execute(
        db.dataSource(),
        "INSERT INTO messaging.orders_leases (name, owner, expires_at) VALUES ('x', 'y', now())");
    Jdbc.execute(db.dataSource(), run.out());

    assertThat(tables("messaging"))
        .containsExactly(
            "orders_idempotency_keys",
            "orders_inbox",
            "orders_leases",
            "orders_operations",
            "orders_outbox",
            "orders_outbox_dead");
    assertThat(Jdbc.number(db.dataSource(), "SELECT count(*) FROM messaging.orders_leases"))
        .isEqualTo(1);
  }

  @Test
  void scriptForOddNamesAndDefaultsApplyTwice() throws Exception {
    CliProcess odd =
        CliProcess.relayer(
            "db",
            "script",
            "--provider",
            "postgres",
            "--schema",
            "my\"Schema X",
            "--prefix",
            "Ü-x_");
    CliProcess defaults = CliProcess.relayer("db", "script", "--provider", "postgres");
    CliProcess noPrefix =
        CliProcess.relayer(
            "db", "script", "--provider", "postgres", "--schema", "bare", "--prefix", "");
    for (CliProcess run : List.of(odd, defaults, noPrefix)) {
      assertThat(run.exitCode()).isZero();
      assertThat(run.err()).isEmpty();
      Jdbc.execute(db.dataSource(), run.out());
      Jdbc.execute(db.dataSource(), run.out());
    }

    assertThat(tables("my\"Schema X"))
        .containsExactly(
            "Ü-x_idempotency_keys",
            "Ü-x_inbox",
            "Ü-x_leases",
            "Ü-x_operations",
            "Ü-x_outbox",
            "Ü-x_outbox_dead");
    assertThat(tables("public"))
        .contains("relayer_inbox", "relayer_leases", "relayer_outbox", "relayer_outbox_dead");
    assertThat(tables("bare"))
        .containsExactly(
            "idempotency_keys", "inbox", "leases", "operations", "outbox", "outbox_dead");
  }

  @Test
  void lineBreakInASchemaNameCannotInjectSql() throws Exception {
    Jdbc.execute(db.dataSource(), "CREATE TABLE victim (x int)");
    String schema = "x\nDROP TABLE victim;--";

    CliProcess run =
        CliProcess.relayer("db", "script", "--provider", "postgres", "--schema", schema);
    assertThat(run.exitCode()).isZero();
    Jdbc.execute(db.dataSource(), run.out());

    assertThat(tables("public")).contains("victim");
    assertThat(tables(schema))
        .containsExactly(
            "relayer_idempotency_keys",
            "relayer_inbox",
            "relayer_leases",
            "relayer_operations",
            "relayer_outbox",
            "relayer_outbox_dead");
  }

  private static List<String> tables(String schema) throws Exception {
    return Jdbc.rows(
        db.dataSource(),
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE n.nspname = ? AND c.relkind = 'r' ORDER BY c.relname COLLATE \"C\"",
        schema);
  }
}
