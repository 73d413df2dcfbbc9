package dev.relayer.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PostgreSqlOutboxSchemaTest {

  private static final List<String> TABLES =
      List.of("outbox", "outbox_dead", "inbox", "leases", "operations", "idempotency_keys");

  private static final List<String> INDEXES =
      List.of(
          "outbox_pending_idx",
          "outbox_deliver_at_idx",
          "outbox_parked_idx",
          "outbox_dead_failed_at_idx",
          "inbox_processed_at_idx",
          "operations_at_idx",
          "outbox_lane_key_idx",
          "idempotency_keys_at_idx");

  private static final List<String> CONSTRAINTS =
      List.of(
          "outbox_pkey",
          "outbox_message_id_check",
          "outbox_transport_check",
          "outbox_destination_check",
          "outbox_message_type_check",
          "outbox_headers_check",
          "outbox_lane_check",
          "outbox_ordering_check",
          "outbox_attempts_check",
          "outbox_status_check",
          "outbox_parked_check",
          "outbox_claim_token_check",
          "outbox_claim_check",
          "outbox_dead_pkey",
          "outbox_dead_message_id_check",
          "outbox_dead_headers_check",
          "outbox_dead_lane_check",
          "outbox_dead_ordering_check",
          "outbox_dead_attempts_check",
          "inbox_pkey",
          "inbox_message_id_check",
          "leases_pkey",
          "operations_pkey",
          "operations_operator_check",
          "operations_operation_check",
          "operations_filter_check",
          "operations_rows_check",
          "idempotency_keys_pkey",
          "idempotency_keys_key_check",
          "idempotency_keys_id_check");

  @Test
  void scriptCreatesEveryTableIndexAndConstraintWithDefaultNames() {
    String script = PostgreSqlOutboxSchema.createScript(SchemaOptions.defaults());

    assertThat(script).contains("CREATE SCHEMA IF NOT EXISTS \"public\";");
    for (String table : TABLES) {
      assertThat(script)
          .contains("CREATE TABLE IF NOT EXISTS \"public\".\"relayer_" + table + "\" (");
    }
    for (String index : INDEXES) {
      assertThat(script).contains("CREATE INDEX IF NOT EXISTS \"relayer_" + index + "\" ON ");
    }
    for (String constraint : CONSTRAINTS) {
      assertThat(script).contains("CONSTRAINT \"relayer_" + constraint + "\" ");
    }
    assertThat(count(script, "CONSTRAINT ")).isEqualTo(CONSTRAINTS.size());
    assertThat(count(script, "CREATE INDEX ")).isEqualTo(INDEXES.size());
    assertThat(count(script, "CREATE TABLE ")).isEqualTo(TABLES.size());
  }

  @Test
  void scriptHasThePartialIndexPredicates() {
    String script = PostgreSqlOutboxSchema.createScript(SchemaOptions.defaults());

    assertThat(script)
        .contains(
            "\"relayer_outbox_pending_idx\" ON \"public\".\"relayer_outbox\""
                + " (lane, id) WHERE status = 'pending'")
        .contains(
            "\"relayer_outbox_deliver_at_idx\" ON \"public\".\"relayer_outbox\""
                + " (deliver_at) WHERE deliver_at IS NOT NULL")
        .contains(
            "\"relayer_outbox_parked_idx\" ON \"public\".\"relayer_outbox\""
                + " (lane, ordering_key) WHERE status = 'parked'")
        .contains(
            "\"relayer_outbox_lane_key_idx\" ON \"public\".\"relayer_outbox\""
                + " (lane, ordering_key, id) WHERE status = 'pending' AND ordering_key IS NOT NULL");
  }

  @Test
  void everyCreateStatementUsesIfNotExists() {
    List<String> statements = PostgreSqlOutboxSchema.createStatements(SchemaOptions.defaults());

    assertThat(statements).hasSize(1 + TABLES.size() + INDEXES.size());
    assertThat(statements)
        .allSatisfy(
            statement ->
                assertThat(statement)
                    .matches(
                        Pattern.compile(
                            "CREATE (SCHEMA|TABLE|INDEX) IF NOT EXISTS .*", Pattern.DOTALL)));
    String script = PostgreSqlOutboxSchema.createScript(SchemaOptions.defaults());
    assertThat(count(script, "CREATE ")).isEqualTo(statements.size());
    assertThat(
            Pattern.compile("CREATE (SCHEMA|TABLE|INDEX) IF NOT EXISTS ").matcher(script).results())
        .hasSize(statements.size());
  }

  @Test
  void scriptHasNoTransactionStatements() {
    String script = PostgreSqlOutboxSchema.createScript(SchemaOptions.of("Begin", "commit_"));

    // Names may contain the words (quoted); statements may not.
    String unquoted = script.replaceAll("\"(?:[^\"]|\"\")*\"", "\"\"");
    assertThat(unquoted)
        .doesNotContainPattern(
            Pattern.compile(
                "(?im)^\\s*(BEGIN|COMMIT|ROLLBACK|START\\s+TRANSACTION|END|SAVEPOINT|SET)\\b"));
    assertThat(unquoted).doesNotContainIgnoringCase("transaction");
  }

  @Test
  void scriptQuotesOddSchemaAndPrefixEverywhereAndNeverUnquoted() {
    String script = PostgreSqlOutboxSchema.createScript(SchemaOptions.of("my\"Schema X", "Ü-x_"));

    assertThat(script).contains("CREATE SCHEMA IF NOT EXISTS \"my\"\"Schema X\";");
    assertThat(script).contains("CREATE TABLE IF NOT EXISTS \"my\"\"Schema X\".\"Ü-x_outbox\" (");
    assertThat(script).contains("CONSTRAINT \"Ü-x_outbox_claim_check\" ");
    // Every occurrence of the prefix opens a quoted identifier.
    Matcher prefix = Pattern.compile("Ü-x_").matcher(script);
    int occurrences = 0;
    while (prefix.find()) {
      occurrences++;
      assertThat(script.charAt(prefix.start() - 1)).isEqualTo('"');
    }
    assertThat(occurrences).isEqualTo(1 + TABLES.size() + INDEXES.size() * 2 + CONSTRAINTS.size());
    // The schema never appears with its quote undoubled.
    assertThat(script).doesNotContain("\"my\"Schema");
  }

  @Test
  void emptyPrefixGivesTheBareBaseNames() {
    String script = PostgreSqlOutboxSchema.createScript(SchemaOptions.of("messaging", ""));

    assertThat(script).contains("CREATE TABLE IF NOT EXISTS \"messaging\".\"outbox\" (");
    assertThat(script).contains("CREATE TABLE IF NOT EXISTS \"messaging\".\"leases\" (");
    assertThat(script).contains("CONSTRAINT \"outbox_pkey\" PRIMARY KEY (id)");
    assertThat(script).contains("CREATE INDEX IF NOT EXISTS \"inbox_processed_at_idx\" ON ");
    assertThat(script).doesNotContain("relayer_");
  }

  @Test
  void lineBreakInAnIdentifierCannotEscapeTheHeaderComment() {
    String schema = "x\nDROP TABLE important;--";
    String script = PostgreSqlOutboxSchema.createScript(SchemaOptions.of(schema, "a\rb_"));

    List<String> lines = script.lines().toList();
    assertThat(lines.get(0))
        .isEqualTo(
            "-- Relayer schema for PostgreSQL: schema \"x\\nDROP TABLE important;--\","
                + " table prefix \"a\\rb_\"");
    // The header stays three comment lines; the first statement follows them.
    assertThat(lines.get(1)).isEqualTo("-- schema version 4.");
    assertThat(lines.get(2)).isEqualTo("-- Safe to run again: every statement uses IF NOT EXISTS.");
    assertThat(lines.get(3)).isEmpty();
    assertThat(lines.get(4)).isEqualTo("CREATE SCHEMA IF NOT EXISTS \"x");
    // In the statements themselves the identifier is kept as given, inside quotes.
    assertThat(script).contains("CREATE SCHEMA IF NOT EXISTS \"" + schema + "\";");
  }

  @Test
  void rejectsInvalidOptionsBeforeAnySqlExists() {
    assertThatThrownBy(
            () -> PostgreSqlOutboxSchema.createScript(SchemaOptions.of("a", "é".repeat(18))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("64 bytes");
    assertThatThrownBy(() -> PostgreSqlOutboxSchema.createStatements(null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void theWholeScriptIsStepOneThenTheUpgradeFromVersionOne() {
    SchemaOptions options = SchemaOptions.of("messaging", "orders_");
    List<String> one = PostgreSqlOutboxSchema.stepStatements(options, 1);
    List<String> upgrade = PostgreSqlOutboxSchema.upgradeStatements(options, 1);

    List<String> two = PostgreSqlOutboxSchema.stepStatements(options, 2);
    List<String> three = PostgreSqlOutboxSchema.stepStatements(options, 3);
    List<String> four = PostgreSqlOutboxSchema.stepStatements(options, 4);

    assertThat(PostgreSqlOutboxSchema.CURRENT_VERSION).isEqualTo(4);
    assertThat(PostgreSqlOutboxSchema.createStatements(options))
        .startsWith(one.toArray(String[]::new))
        .endsWith(upgrade.toArray(String[]::new))
        .hasSize(one.size() + upgrade.size());
    assertThat(upgrade)
        .startsWith(two.toArray(String[]::new))
        .endsWith(four.toArray(String[]::new));
    assertThat(upgrade).hasSize(two.size() + three.size() + four.size());
    assertThat(String.join("\n", one)).doesNotContain("operations").doesNotContain("lane_key");
    assertThat(two)
        .hasSize(2)
        .allSatisfy(statement -> assertThat(statement).contains("\"orders_operations"));
    assertThat(two.get(0))
        .startsWith("CREATE TABLE IF NOT EXISTS \"messaging\".\"orders_operations\" (");
    assertThat(three)
        .containsExactly(
            "CREATE INDEX IF NOT EXISTS \"orders_outbox_lane_key_idx\""
                + " ON \"messaging\".\"orders_outbox\""
                + " (lane, ordering_key, id) WHERE status = 'pending' AND ordering_key IS NOT NULL");
    assertThat(four)
        .containsExactly(
            "CREATE TABLE IF NOT EXISTS \"messaging\".\"orders_idempotency_keys\" (\n"
                + "  idempotency_key text NOT NULL,\n"
                + "  message_id uuid NOT NULL,\n"
                + "  created_at timestamptz NOT NULL DEFAULT now(),\n"
                + "  CONSTRAINT \"orders_idempotency_keys_pkey\" PRIMARY KEY (idempotency_key),\n"
                + "  CONSTRAINT \"orders_idempotency_keys_key_check\""
                + " CHECK (idempotency_key <> '' AND char_length(idempotency_key) <= 255),\n"
                + "  CONSTRAINT \"orders_idempotency_keys_id_check\""
                + " CHECK (message_id <> '00000000-0000-0000-0000-000000000000'::uuid)\n"
                + ")",
            "CREATE INDEX IF NOT EXISTS \"orders_idempotency_keys_at_idx\""
                + " ON \"messaging\".\"orders_idempotency_keys\" (created_at)");
    List<String> threeAndFour = new java.util.ArrayList<>(three);
    threeAndFour.addAll(four);
    assertThat(PostgreSqlOutboxSchema.upgradeStatements(options, 2)).isEqualTo(threeAndFour);
    assertThat(PostgreSqlOutboxSchema.upgradeStatements(options, 3)).isEqualTo(four);
    assertThat(PostgreSqlOutboxSchema.upgradeStatements(options, 4)).isEmpty();
  }

  @Test
  void theUpgradeScriptSaysWhatItUpgradesAndFromTheCurrentVersionHasNothingToRun() {
    String upgrade = PostgreSqlOutboxSchema.upgradeScript(SchemaOptions.defaults(), 1);
    String fromTwo = PostgreSqlOutboxSchema.upgradeScript(SchemaOptions.defaults(), 2);
    String fromThree = PostgreSqlOutboxSchema.upgradeScript(SchemaOptions.defaults(), 3);
    String none = PostgreSqlOutboxSchema.upgradeScript(SchemaOptions.defaults(), 4);

    assertThat(upgrade.lines().toList().get(1)).isEqualTo("-- upgrade from schema version 1 to 4.");
    assertThat(count(upgrade, "CREATE TABLE ")).isEqualTo(2);
    assertThat(count(upgrade, "CREATE INDEX ")).isEqualTo(3);
    assertThat(upgrade)
        .doesNotContain("CREATE SCHEMA")
        .doesNotContain("CREATE TABLE IF NOT EXISTS \"public\".\"relayer_outbox\"");
    assertThat(fromTwo.lines().toList().get(1)).isEqualTo("-- upgrade from schema version 2 to 4.");
    assertThat(count(fromTwo, "CREATE ")).isEqualTo(3);
    assertThat(fromTwo).contains("CREATE INDEX IF NOT EXISTS \"relayer_outbox_lane_key_idx\" ON ");
    assertThat(fromThree.lines().toList().get(1))
        .isEqualTo("-- upgrade from schema version 3 to 4.");
    assertThat(count(fromThree, "CREATE ")).isEqualTo(2);
    assertThat(fromThree)
        .contains("CREATE TABLE IF NOT EXISTS \"public\".\"relayer_idempotency_keys\" (")
        .doesNotContain("outbox");
    assertThat(none.lines().filter(line -> !line.isEmpty()))
        .allSatisfy(line -> assertThat(line).startsWith("--"));
    assertThat(none).contains("Nothing to do");
  }

  @Test
  void versionsOutsideOneToTheCurrentAreRefusedNamingTheRange() {
    for (int bad : new int[] {0, -1, 5}) {
      assertThatThrownBy(() -> PostgreSqlOutboxSchema.upgradeScript(SchemaOptions.defaults(), bad))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("fromVersion must be a schema version from 1 to 4")
          .hasMessageContaining("was " + bad);
      assertThatThrownBy(() -> PostgreSqlOutboxSchema.stepStatements(SchemaOptions.defaults(), bad))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("version must be a schema version from 1 to 4");
    }
  }

  private static int count(String text, String needle) {
    int count = 0;
    for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length())) {
      count++;
    }
    return count;
  }
}
