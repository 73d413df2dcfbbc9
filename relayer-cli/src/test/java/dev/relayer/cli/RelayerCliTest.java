package dev.relayer.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.schema.SchemaOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class RelayerCliTest {

  /** What one in-process run printed and returned. */
  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exitCode = RelayerCli.run(new PrintWriter(out), new PrintWriter(err), args);
    return new Run(exitCode, out.toString(), err.toString());
  }

  /** Asserts a usage error: exit 2, nothing on stdout, exactly one line on stderr. */
  private static String usageError(String... args) {
    Run run = run(args);
    assertThat(run.exitCode()).as("exit code").isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(run.out()).as("stdout").isEmpty();
    assertThat(run.err()).as("stderr").endsWith(System.lineSeparator());
    assertThat(run.err().lines()).as("stderr lines").hasSize(1);
    return run.err().strip();
  }

  @Test
  void printsTheDefaultScript() {
    Run run = run("db", "script", "--provider", "postgres");

    assertThat(run.exitCode()).isZero();
    assertThat(run.err()).isEmpty();
    assertThat(run.out()).isEqualTo(PostgreSqlOutboxSchema.createScript(SchemaOptions.defaults()));
  }

  @Test
  void fromOneOrTwoPrintsOnlyTheUpgradeToTheCurrentVersion() {
    Run run =
        run(
            "db",
            "script",
            "--provider",
            "postgres",
            "--schema",
            "messaging",
            "--prefix",
            "orders_",
            "--from",
            "1");
    Run fromTwo = run("db", "script", "--provider", "postgres", "--from", "2");
    Run fromThree = run("db", "script", "--provider", "postgres", "--from", "3");
    Run current = run("db", "script", "--provider", "postgres", "--from", "4");

    assertThat(run.exitCode()).isZero();
    assertThat(run.err()).isEmpty();
    assertThat(run.out())
        .isEqualTo(
            PostgreSqlOutboxSchema.upgradeScript(SchemaOptions.of("messaging", "orders_"), 1))
        .contains("CREATE TABLE IF NOT EXISTS \"messaging\".\"orders_operations\"")
        .contains("CREATE INDEX IF NOT EXISTS \"orders_outbox_lane_key_idx\"")
        .contains("CREATE TABLE IF NOT EXISTS \"messaging\".\"orders_idempotency_keys\"")
        .doesNotContain("CREATE TABLE IF NOT EXISTS \"messaging\".\"orders_outbox\"");
    assertThat(fromTwo.exitCode()).isZero();
    assertThat(fromTwo.out())
        .isEqualTo(PostgreSqlOutboxSchema.upgradeScript(SchemaOptions.defaults(), 2))
        .contains("CREATE INDEX IF NOT EXISTS \"relayer_outbox_lane_key_idx\"")
        .contains("CREATE TABLE IF NOT EXISTS \"public\".\"relayer_idempotency_keys\"")
        .doesNotContain("CREATE TABLE IF NOT EXISTS \"public\".\"relayer_operations\"");
    assertThat(fromThree.exitCode()).isZero();
    assertThat(fromThree.out())
        .isEqualTo(PostgreSqlOutboxSchema.upgradeScript(SchemaOptions.defaults(), 3))
        .contains("CREATE TABLE IF NOT EXISTS \"public\".\"relayer_idempotency_keys\"")
        .contains("CREATE INDEX IF NOT EXISTS \"relayer_idempotency_keys_at_idx\"")
        .doesNotContain("lane_key_idx");
    assertThat(current.exitCode()).isZero();
    assertThat(current.out()).contains("Nothing to do").doesNotContain("CREATE");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-1", "5", "two", "", "1.5"})
  void fromThatIsNotAVersionFromOneToTheCurrentIsAUsageError(String from) {
    String error = usageError("db", "script", "--provider", "postgres", "--from=" + from);

    assertThat(error)
        .startsWith("relayer db script: --from must be a schema version from 1 to 4")
        .contains(from.matches("-?\\d+") ? "was " + from : "not '" + from + "'");
  }

  @Test
  void printsTheScriptForTheGivenSchemaAndPrefix() {
    Run run =
        run(
            "db",
            "script",
            "--provider",
            "postgres",
            "--schema",
            "messaging",
            "--prefix",
            "orders_");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .isEqualTo(PostgreSqlOutboxSchema.createScript(SchemaOptions.of("messaging", "orders_")));
  }

  @Test
  void keepsQuotesSpacesAndUnicodeInNamesAndAcceptsTheEqualsForm() {
    Run run = run("db", "script", "--provider=postgres", "--schema=my\"Schema X", "--prefix=Ü-x_");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .isEqualTo(PostgreSqlOutboxSchema.createScript(SchemaOptions.of("my\"Schema X", "Ü-x_")));
  }

  @Test
  void emptyPrefixMeansNoPrefix() {
    Run run = run("db", "script", "--provider", "postgres", "--prefix", "");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("CREATE TABLE IF NOT EXISTS \"public\".\"outbox\" (");
    assertThat(run.out()).doesNotContain("relayer_outbox");
  }

  @Test
  void namesStartingWithAtOrDashAreNamesNotFilesOrOptions() {
    Run run = run("db", "script", "--provider", "postgres", "--schema", "@ops", "--prefix=-x_");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("CREATE TABLE IF NOT EXISTS \"@ops\".\"-x_outbox\" (");
  }

  @Test
  void providerNameIsCaseInsensitiveAndAcceptsPostgresql() {
    assertThat(run("db", "script", "--provider", "PostgreSQL").exitCode()).isZero();
    assertThat(run("db", "script", "--provider", "POSTGRES").exitCode()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"mysql", "sqlserver", "oracle", "h2", "postgres13", ""})
  void rejectsEveryProviderButPostgres(String provider) {
    assertThat(usageError("db", "script", "--provider", provider))
        .isEqualTo(
            "relayer db script: unsupported provider '"
                + provider
                + "': Relayer runs on PostgreSQL only (--provider postgres)"
                + " (see 'relayer db script --help')");
  }

  @Test
  void missingProviderIsAUsageError() {
    assertThat(usageError("db", "script")).contains("--provider");
  }

  @Test
  void missingOptionValuesAreUsageErrors() {
    assertThat(usageError("db", "script", "--provider")).contains("--provider");
    assertThat(usageError("db", "script", "--provider", "postgres", "--schema"))
        .contains("--schema");
    assertThat(usageError("db", "script", "--provider", "postgres", "--schema", "--prefix", "x"))
        .contains("--schema");
  }

  @Test
  void unknownFlagsCommandsAndArgumentsAreUsageErrors() {
    assertThat(usageError("db", "script", "--provider", "postgres", "--tables"))
        .isEqualTo(
            "relayer db script: Unknown option: '--tables' (see 'relayer db script --help')");
    assertThat(usageError("deploy")).startsWith("relayer: ").contains("'deploy'");
    assertThat(usageError("db", "drop")).startsWith("relayer db: ").contains("'drop'");
    assertThat(usageError("db", "script", "--provider", "postgres", "extra")).contains("'extra'");
  }

  @Test
  void missingSubcommandIsAUsageError() {
    assertThat(usageError()).startsWith("relayer: ").contains("subcommand");
    assertThat(usageError("db")).startsWith("relayer db: ").contains("subcommand");
  }

  @Test
  void repeatedOptionIsAUsageError() {
    assertThat(
            usageError("db", "script", "--provider", "postgres", "--schema", "a", "--schema", "b"))
        .contains("--schema");
  }

  @Test
  void invalidIdentifiersAreUsageErrorsNamingTheIdentifierAndItsBytes() {
    assertThat(usageError("db", "script", "--provider", "postgres", "--schema", ""))
        .isEqualTo("relayer db script: schema must not be empty (see 'relayer db script --help')");

    String prefix = "é".repeat(18);
    assertThat(usageError("db", "script", "--provider", "postgres", "--prefix", prefix))
        .contains("\"" + prefix + "outbox_dead_message_id_check\" is 64 bytes");

    assertThat(usageError("db", "script", "--provider", "postgres", "--schema", "x".repeat(64)))
        .contains("is 64 bytes");
  }

  @Test
  void errorsStayOnOneLineEvenWhenAnArgumentHasALineBreak() {
    String error = usageError("db", "script", "--provider", "my\nsql");

    assertThat(error).contains("'my\\nsql'");
  }

  @Test
  void argumentsTheJvmCouldNotDecodeAreRejected() {
    assertThat(usageError("db", "script", "--provider", "postgres", "--prefix", "\uFFFD\uFFFD-x_"))
        .isEqualTo(
            "relayer: argument 6 contains characters that could not be decoded;"
                + " run with a UTF-8 locale (for example LC_ALL=C.UTF-8)");
  }

  @Test
  void helpPrintsUsageOnStdout() {
    for (String[] args :
        new String[][] {{"--help"}, {"-h"}, {"db", "--help"}, {"db", "script", "--help"}}) {
      Run run = run(args);
      assertThat(run.exitCode()).isZero();
      assertThat(run.err()).isEmpty();
      assertThat(run.out()).startsWith("Usage: relayer");
    }
    Run script = run("db", "script", "--help");
    assertThat(script.out())
        .contains("--provider=<provider>")
        .contains("--schema=<schema>")
        .contains("environment variable RELAYER_SCHEMA, else public")
        .contains("variable RELAYER_PREFIX, else relayer_");
    assertThat(run("--help").out()).contains("db").contains("Exit codes");
  }

  @Test
  void helpWinsOverMissingRequiredOptions() {
    Run run = run("db", "script", "--help", "--schema", "x");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).startsWith("Usage: relayer db script");
  }

  @Test
  void versionPrintsTheBuildVersionOnStdoutEverywhere() {
    for (String[] args : new String[][] {{"--version"}, {"-V"}, {"db", "script", "--version"}}) {
      Run run = run(args);
      assertThat(run.exitCode()).isZero();
      assertThat(run.err()).isEmpty();
      assertThat(run.out()).matches("relayer \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\R");
    }
  }

  @Test
  void failingToWriteStdoutIsAFailureReportedOnStderr() {
    Writer broken =
        new Writer() {
          @Override
          public void write(char[] buffer, int offset, int length) throws java.io.IOException {
            throw new java.io.IOException("Broken pipe");
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    StringWriter err = new StringWriter();

    int exitCode =
        RelayerCli.run(
            new PrintWriter(broken),
            new PrintWriter(err),
            "db",
            "script",
            "--provider",
            "postgres");

    assertThat(exitCode).isEqualTo(RelayerCli.EXIT_FAILURE);
    assertThat(err.toString().strip())
        .isEqualTo("relayer db script: could not write the script to standard output");
  }

  @Test
  void attachedValuesThatLookLikeOptionsAreValues() {
    Run run =
        run("db", "script", "--provider=postgres", "--schema=--prefix", "--prefix=--schema=x_");

    assertThat(run.exitCode()).isZero();
    assertThat(run.err()).isEmpty();
    assertThat(run.out())
        .isEqualTo(
            PostgreSqlOutboxSchema.createScript(SchemaOptions.of("--prefix", "--schema=x_")));
    assertThat(run("db", "script", "--provider", "postgres", "--schema=--help").out())
        .contains("CREATE SCHEMA IF NOT EXISTS \"--help\"");
  }

  @Test
  void aSeparateValueThatIsAnOptionIsAUsageErrorSuggestingTheAttachedForm() {
    assertThat(usageError("db", "script", "--provider", "postgres", "--schema", "--prefix=x"))
        .isEqualTo(
            "relayer db script: Expected parameter for option '--schema' but found '--prefix=x';"
                + " to pass a value that starts like an option, attach it: --schema=--prefix=x"
                + " (see 'relayer db script --help')");
    assertThat(usageError("db", "script", "--provider", "--help")).contains("--provider=--help");
  }

  @Test
  void aHugeArgumentGivesAShortErrorLine() {
    String prefix = "p".repeat(100_000);

    String error = usageError("db", "script", "--provider", "postgres", "--prefix", prefix);

    assertThat(error.length()).isLessThan(ErrorLine.MAX_LENGTH + 100);
    assertThat(error)
        .startsWith("relayer db script: identifier \"pppp")
        .contains("… (100028 characters) is 100028 bytes in UTF-8; PostgreSQL allows at most 63")
        .contains("(and 43 more identifiers with this prefix)")
        .endsWith("(see 'relayer db script --help')");
    String provider = "x".repeat(50_000) + "\n";
    String providerError = usageError("db", "script", "--provider", provider);
    assertThat(providerError.length()).isLessThanOrEqualTo(ErrorLine.MAX_LENGTH + 40);
    assertThat(providerError)
        .contains("characters left out")
        .endsWith("(see 'relayer db script --help')");
  }

  private static PrintWriter closed() {
    return new PrintWriter(
        new Writer() {
          @Override
          public void write(char[] buffer, int offset, int length) throws java.io.IOException {
            throw new java.io.IOException("Stream closed");
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        });
  }

  @Test
  void helpAndVersionOnAStandardOutputThatCannotBeWrittenExitOne() {
    for (String[] args : new String[][] {{"--help"}, {"db", "script", "--help"}, {"--version"}}) {
      StringWriter err = new StringWriter();

      int exitCode = RelayerCli.run(closed(), new PrintWriter(err), args);

      assertThat(exitCode).as(String.join(" ", args)).isEqualTo(RelayerCli.EXIT_FAILURE);
      assertThat(err.toString().strip()).isEqualTo("relayer: could not write to standard output");
    }
  }

  @Test
  void helpWithItsStandardOutputClosedByTheReaderExitsOneInARealProcess() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                RelayerCli.class.getName(),
                "--help")
            .redirectError(ProcessBuilder.Redirect.PIPE)
            .start();
    // The reader goes away before the command writes: its writes fail with a broken pipe.
    process.getInputStream().close();

    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(err).isEqualTo(RelayerCli.EXIT_FAILURE);
    assertThat(err.strip()).isEqualTo("relayer: could not write to standard output");
  }

  @Test
  void statusWithoutAUrlIsAUsageErrorNamingBothWaysToGiveOne() {
    assumeTrue(System.getenv(StatusCommand.URL_VARIABLE) == null, "RELAYER_URL is set");
    assumeTrue(
        System.getenv("PGHOST") == null
            && System.getenv("PGDATABASE") == null
            && System.getenv("PGUSER") == null,
        "the libpq environment names a database");

    assertThat(usageError("status")).contains("no database: give --url or set RELAYER_URL");
  }

  /** Every way a password given on the command line could come back in what a command prints. */
  static Stream<List<String>> passwordsOnTheCommandLine() {
    String url = "jdbc:postgresql://127.0.0.1:1/app?user=a&password=hunter2&connectTimeout=1";
    return Stream.of(
        List.of("status", "--ulr", url),
        List.of("status", "--ulr=" + url),
        List.of("status", url),
        List.of("dead", "list", url),
        List.of("parked", "list", "--url=" + url, url),
        List.of("status", "--url", url, "--url", url),
        List.of("status", "--url=postgresql://a:hunter2@127.0.0.1:1/app"),
        List.of("status", "--url", "jdbc:mysql://a:hunter2@db/app"),
        List.of("status", "--url=" + url.replace("password", "sslpassword")),
        List.of("db", "script", "--provider", "postgres", url),
        List.of("db", "verify", "--url", url, "--PASSWORD=hunter2"),
        List.of("dead", "show", "password=hunter2", "--url=" + url),
        List.of("dead", "replay", "--url=" + url, "--dry-run", "--after=password=hunter2"),
        List.of("parked", "retry", "--url", url),
        List.of("status", "--url", url, "--schema", "--prefix=password=hunter2"),
        List.of("status", "--json=" + url),
        List.of("audit", "--url=" + url, "--limit=password=hunter2"),
        List.of("bogus", "--url=" + url));
  }

  @ParameterizedTest
  @MethodSource("passwordsOnTheCommandLine")
  void noPasswordFromTheCommandLineReachesEitherStreamInUsageErrorsOrFailures(List<String> args) {
    Run run = run(args.toArray(String[]::new));

    assertThat(run.exitCode()).as(run.err()).isNotZero();
    assertThat(run.out() + run.err()).doesNotContain("hunter2");
  }

  @Test
  void thePgPasswordValueNeverReachesEitherStreamWhateverArgumentCarriesIt() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exitCode =
        RelayerCli.runWith(
            new PrintWriter(out),
            new PrintWriter(err),
            "pg-Secret-42",
            "status",
            "--url=jdbc:postgresql://127.0.0.1:1/app",
            "--bogus=pg-Secret-42",
            "pg-Secret-42");

    assertThat(exitCode).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(err.toString()).contains("***").doesNotContain("pg-Secret-42");
    assertThat(out.toString()).doesNotContain("pg-Secret-42");
  }

  @Test
  void bidiOverridesC1CodesAndEscapesInAnArgumentAreEscapedInTheUsageError() {
    String error = usageError("status", "--bogus=a\u202eb\u2067c\u009bd\u001b[2Je");

    assertThat(error)
        .contains("a\\u202eb\\u2067c\\u009bd\\u001b[2Je")
        .doesNotContain("\u202e")
        .doesNotContain("\u2067")
        .doesNotContain("\u009b")
        .doesNotContain("\u001b");
  }

  @Test
  void aSchemaAndPrefixNamedDoubleDashAreAcceptedAttachedAsTheApiAcceptsThem() {
    Run script = run("db", "script", "--provider", "postgres", "--schema=--", "--prefix=--");
    Run status =
        run(
            "status",
            "--url=jdbc:postgresql://127.0.0.1:1/app?connectTimeout=1",
            "--schema=--",
            "--prefix=--");

    assertThat(script.exitCode()).as(script.err()).isZero();
    assertThat(script.out())
        .isEqualTo(PostgreSqlOutboxSchema.createScript(SchemaOptions.of("--", "--")))
        .contains("\"--\".\"--outbox\"");
    assertThat(status.exitCode())
        .as("a failure to connect, not a usage error: " + status.err())
        .isEqualTo(RelayerCli.EXIT_FAILURE);
    assertThat(status.err()).startsWith("relayer status: cannot use --.-- at ");
  }

  @Test
  void statusWithANonPostgresUrlIsAUsageErrorThatHidesThePassword() {
    String error = usageError("status", "--url=jdbc:mysql://db/app?user=a&password=hunter2");

    assertThat(error).contains("--url must be a PostgreSQL JDBC URL").contains("password=***");
    assertThat(error).doesNotContain("hunter2");
  }

  @Test
  void statusOnAServerThatDoesNotAnswerFailsWithOneLineThatHidesThePassword() {
    Run run =
        run(
            "status",
            "--url=jdbc:postgresql://127.0.0.1:1/app?user=a&password=hunter2&connectTimeout=2");

    assertThat(run.exitCode()).isEqualTo(RelayerCli.EXIT_FAILURE);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines()).hasSize(1);
    assertThat(run.err()).startsWith("relayer status: cannot use public.relayer_ at ");
    assertThat(run.err()).contains("password=***").doesNotContain("hunter2");
  }

  @Test
  void statusWithAnEmptySchemaIsAUsageErrorNamingIt() {
    assertThat(usageError("status", "--url=jdbc:postgresql://127.0.0.1:1/app", "--schema", ""))
        .isEqualTo("relayer status: schema must not be empty (see 'relayer status --help')");
  }
}
