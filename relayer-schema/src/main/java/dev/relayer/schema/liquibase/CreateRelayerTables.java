package dev.relayer.schema.liquibase;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.schema.SchemaOptions;
import liquibase.change.custom.CustomSqlChange;
import liquibase.database.Database;
import liquibase.database.core.PostgresDatabase;
import liquibase.exception.ValidationErrors;
import liquibase.resource.ResourceAccessor;
import liquibase.statement.SqlStatement;
import liquibase.statement.core.RawSqlStatement;

/**
 * The Liquibase change behind Relayer's changelog: it runs exactly the statements of {@link
 * PostgreSqlOutboxSchema#createStatements}, so the script and the changelog cannot drift apart.
 * Liquibase sets {@code schema} and {@code prefix} from the changelog parameters {@code
 * relayer.schema} and {@code relayer.prefix}.
 */
public final class CreateRelayerTables implements CustomSqlChange {

  private String schema;
  private String prefix;

  public String getSchema() {
    return schema;
  }

  public void setSchema(String schema) {
    this.schema = schema;
  }

  public String getPrefix() {
    return prefix;
  }

  /** An absent or empty value means no prefix. */
  public void setPrefix(String prefix) {
    this.prefix = prefix;
  }

  private SchemaOptions options() {
    return SchemaOptions.of(schema, prefix == null ? "" : prefix);
  }

  @Override
  public SqlStatement[] generateStatements(Database database) {
    return PostgreSqlOutboxSchema.createStatements(options()).stream()
        .map(RawSqlStatement::new)
        .toArray(SqlStatement[]::new);
  }

  @Override
  public String getConfirmationMessage() {
    return "Relayer tables exist in schema " + schema + " with prefix '" + prefix + "'";
  }

  @Override
  public void setUp() {}

  @Override
  public void setFileOpener(ResourceAccessor resourceAccessor) {}

  @Override
  public ValidationErrors validate(Database database) {
    ValidationErrors errors = new ValidationErrors();
    if (!(database instanceof PostgresDatabase)) {
      errors.addError(
          "Relayer's changelog supports PostgreSQL only, not " + database.getShortName());
    }
    try {
      options();
    } catch (InvalidInputException e) {
      e.problems().forEach(problem -> errors.addError("relayer.schema/relayer.prefix: " + problem));
    }
    return errors;
  }
}
