package dev.relayer.schema.liquibase;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.schema.SchemaOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import liquibase.database.core.MySQLDatabase;
import liquibase.database.core.PostgresDatabase;
import liquibase.statement.SqlStatement;
import liquibase.statement.core.RawSqlStatement;
import org.junit.jupiter.api.Test;

class CreateRelayerTablesTest {

  private static CreateRelayerTables change(String schema, String prefix) {
    CreateRelayerTables change = new CreateRelayerTables();
    change.setSchema(schema);
    change.setPrefix(prefix);
    return change;
  }

  @SuppressWarnings("deprecation") // the statements CreateRelayerTables makes (see there)
  private static String[] sql(SqlStatement[] statements) {
    return Arrays.stream(statements)
        .map(s -> ((RawSqlStatement) s).getSql())
        .toArray(String[]::new);
  }

  @Test
  void withoutAVersionRunsExactlyTheStatementsOfStepOne() {
    SqlStatement[] statements =
        change("my\"Schema X", "Ü-x_").generateStatements(new PostgresDatabase());

    assertThat(sql(statements))
        .containsExactlyElementsOf(
            PostgreSqlOutboxSchema.stepStatements(SchemaOptions.of("my\"Schema X", "Ü-x_"), 1));
  }

  @Test
  void versionsTwoToFourRunExactlyTheirStepsAndAllTogetherAreTheWholeScript() {
    SchemaOptions options = SchemaOptions.of("my\"Schema X", "Ü-x_");
    CreateRelayerTables two = change("my\"Schema X", "Ü-x_");
    two.setVersion("2");
    CreateRelayerTables three = change("my\"Schema X", "Ü-x_");
    three.setVersion("3");
    CreateRelayerTables four = change("my\"Schema X", "Ü-x_");
    four.setVersion("4");

    List<String> all =
        new ArrayList<>(
            List.of(
                sql(change("my\"Schema X", "Ü-x_").generateStatements(new PostgresDatabase()))));
    all.addAll(List.of(sql(two.generateStatements(new PostgresDatabase()))));
    all.addAll(List.of(sql(three.generateStatements(new PostgresDatabase()))));
    all.addAll(List.of(sql(four.generateStatements(new PostgresDatabase()))));

    assertThat(sql(two.generateStatements(new PostgresDatabase())))
        .containsExactlyElementsOf(PostgreSqlOutboxSchema.stepStatements(options, 2));
    assertThat(sql(three.generateStatements(new PostgresDatabase())))
        .containsExactlyElementsOf(PostgreSqlOutboxSchema.stepStatements(options, 3));
    assertThat(sql(four.generateStatements(new PostgresDatabase())))
        .containsExactlyElementsOf(PostgreSqlOutboxSchema.upgradeStatements(options, 3));
    assertThat(all).containsExactlyElementsOf(PostgreSqlOutboxSchema.createStatements(options));
    assertThat(two.getConfirmationMessage())
        .startsWith("Relayer objects of schema version 2 exist");
    assertThat(three.getConfirmationMessage())
        .isEqualTo(
            "Relayer objects of schema version 3 exist in schema my\"Schema X with prefix 'Ü-x_'");
    assertThat(four.getConfirmationMessage())
        .isEqualTo(
            "Relayer objects of schema version 4 exist in schema my\"Schema X with prefix 'Ü-x_'");
  }

  @Test
  void aVersionOutsideTheKnownStepsFailsValidation() {
    CreateRelayerTables change = change("public", "relayer_");
    change.setVersion("5");
    CreateRelayerTables word = change("public", "relayer_");
    word.setVersion("two");

    assertThat(change.validate(new PostgresDatabase()).getErrorMessages())
        .singleElement()
        .asString()
        .contains("version is '5': it must be a schema version from 1 to 4");
    assertThat(word.validate(new PostgresDatabase()).getErrorMessages())
        .singleElement()
        .asString()
        .contains("version is 'two'");
  }

  @Test
  void absentPrefixMeansNoPrefix() {
    assertThat(sql(change("messaging", null).generateStatements(new PostgresDatabase())))
        .containsExactlyElementsOf(
            PostgreSqlOutboxSchema.stepStatements(SchemaOptions.of("messaging", ""), 1));
    assertThat(change("messaging", null).getConfirmationMessage())
        .isEqualTo("Relayer objects of schema version 1 exist in schema messaging with prefix ''");
  }

  @Test
  void validValuesPassValidation() {
    assertThat(change("public", "relayer_").validate(new PostgresDatabase()).getErrorMessages())
        .isEmpty();
    assertThat(change("public", "").validate(new PostgresDatabase()).getErrorMessages()).isEmpty();
  }

  @Test
  void unsubstitutedParametersFailValidation() {
    assertThat(
            change("${relayer.schema}", "${relayer.prefix}")
                .validate(new PostgresDatabase())
                .getErrorMessages())
        .containsExactly(
            "relayer.schema/relayer.prefix: relayer.schema is '${relayer.schema}':"
                + " the changelog parameter was not substituted; give it a value",
            "relayer.schema/relayer.prefix: relayer.prefix is '${relayer.prefix}':"
                + " the changelog parameter was not substituted; give it a value"
                + " (an empty string for no prefix)");
  }

  @Test
  void invalidIdentifiersFailValidationNamingTheIdentifier() {
    String prefix = "é".repeat(18);

    assertThat(change("public", prefix).validate(new PostgresDatabase()).getErrorMessages())
        .singleElement()
        .asString()
        .contains(prefix + "outbox_dead_message_id_check\" is 64 bytes");
    assertThat(change("", "relayer_").validate(new PostgresDatabase()).getErrorMessages())
        .containsExactly("relayer.schema/relayer.prefix: schema must not be empty");
  }

  @Test
  void aSchemaHoldingTheIdSeparatorFailsValidation() {
    assertThat(change("lb_a prefix=b", "c_").validate(new PostgresDatabase()).getErrorMessages())
        .singleElement()
        .asString()
        .contains("relayer.schema is 'lb_a prefix=b': it must not contain ' prefix='");
    assertThat(change("lb_a", "b prefix=c_").validate(new PostgresDatabase()).getErrorMessages())
        .isEmpty();
  }

  @Test
  void otherDatabasesFailValidation() {
    assertThat(change("public", "relayer_").validate(new MySQLDatabase()).getErrorMessages())
        .containsExactly("Relayer's changelog supports PostgreSQL only, not mysql");
  }
}
