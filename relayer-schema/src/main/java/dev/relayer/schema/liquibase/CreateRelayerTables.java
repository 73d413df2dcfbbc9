package dev.relayer.schema.liquibase;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.schema.SchemaOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import liquibase.Scope;
import liquibase.change.custom.CustomSqlChange;
import liquibase.changelog.ChangeLogParameters;
import liquibase.changelog.DatabaseChangeLog;
import liquibase.database.Database;
import liquibase.database.core.PostgresDatabase;
import liquibase.exception.ValidationErrors;
import liquibase.resource.ResourceAccessor;
import liquibase.statement.SqlStatement;
import liquibase.statement.core.RawSqlStatement;
import org.jspecify.annotations.Nullable;

/**
 * The Liquibase change behind Relayer's changelog: it runs exactly the statements of one step of
 * {@link PostgreSqlOutboxSchema#stepStatements}, so the script and the changelog cannot drift
 * apart. Liquibase sets {@code schema} and {@code prefix} from the changelog parameters {@code
 * relayer.schema} and {@code relayer.prefix}, and {@code version} from the changeset: changeset
 * {@code relayer-1-create-tables} gives none (step 1, the four tables, as it always did, so its
 * checksum is unchanged), {@code relayer-2-operations} gives {@code 2}, {@code
 * relayer-3-lane-key-index} gives {@code 3}, {@code relayer-4-idempotency-keys} gives {@code 4}.
 */
public final class CreateRelayerTables implements CustomSqlChange {

  private static final Pattern UNSUBSTITUTED = Pattern.compile("\\$\\{[^}]*}");

  private @Nullable String schema;
  private @Nullable String prefix;
  private @Nullable String version;

  public @Nullable String getVersion() {
    return version;
  }

  /** The schema step this change runs, from 1 to the current version; absent means 1. */
  public void setVersion(@Nullable String version) {
    this.version = version;
  }

  private int step() {
    if (version == null) {
      return 1;
    }
    try {
      int step = Integer.parseInt(version.trim());
      if (step >= 1 && step <= PostgreSqlOutboxSchema.CURRENT_VERSION) {
        return step;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new InvalidInputException(
        "version is '"
            + version
            + "': it must be a schema version from 1 to "
            + PostgreSqlOutboxSchema.CURRENT_VERSION);
  }

  public @Nullable String getSchema() {
    return schema;
  }

  public void setSchema(@Nullable String schema) {
    this.schema = schema;
  }

  public @Nullable String getPrefix() {
    return prefix;
  }

  /** An absent or empty value means no prefix. */
  public void setPrefix(@Nullable String prefix) {
    this.prefix = prefix;
  }

  private SchemaOptions options() {
    List<String> problems = new ArrayList<>();
    unsubstituted("relayer.schema", schema).ifPresent(problems::add);
    unsubstituted("relayer.prefix", prefix).ifPresent(problems::add);
    if (schema != null && schema.contains(ID_SEPARATOR)) {
      problems.add(
          "relayer.schema is '"
              + schema
              + "': it must not contain '"
              + ID_SEPARATOR
              + "', which separates the schema from the prefix in the changeset id"
              + " (another install's id could be the same)");
    }
    if (schema == null) {
      problems.add("schema must not be null");
    }
    if (schema == null || !problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
    return SchemaOptions.of(schema, prefix == null ? "" : prefix);
  }

  /**
   * What the changeset id puts between the schema and the prefix. The id is {@code
   * relayer-1-create-tables schema=<schema> prefix=<prefix>}; with no {@code " prefix="} in the
   * schema its first occurrence ends the schema, so no two installs share an id.
   */
  static final String ID_SEPARATOR = " prefix=";

  /**
   * Values that hold a {@code ${...}} before Liquibase expands them, as the changelog's parameters
   * give them: a value such as {@code p${relayer.schema}_} is expanded by Liquibase, so the
   * changelog would create other tables than a store configured with the value names, and a value
   * that refers to itself ({@code x${relayer.schema}}) makes Liquibase expand it forever ({@link
   * RelayerChangeLogParser} checks before that).
   *
   * @param changeLog the changelog whose local parameters count too, or {@code null} for the system
   *     and global parameters only
   */
  static List<String> placeholderProblems(
      @Nullable ChangeLogParameters parameters, @Nullable DatabaseChangeLog changeLog) {
    List<String> problems = new ArrayList<>();
    if (parameters == null) {
      return problems;
    }
    for (String parameter : List.of("relayer.schema", "relayer.prefix")) {
      Object raw = parameters.getValue(parameter, changeLog);
      if (raw != null && raw.toString().contains("${")) {
        problems.add(
            parameter
                + " is '"
                + raw
                + "': it must not contain '${' (Liquibase would expand it as a changelog"
                + " parameter, and the tables would not be named as given)");
      }
    }
    return problems;
  }

  /** A problem with the changelog's parameters as Liquibase reports it. */
  static String errorMessage(String problem) {
    return "relayer.schema/relayer.prefix: " + problem;
  }

  private static List<String> expandedValues() {
    DatabaseChangeLog changeLog =
        Scope.getCurrentScope().get(Scope.Attr.databaseChangeLog.name(), DatabaseChangeLog.class);
    if (changeLog == null) {
      return List.of();
    }
    return placeholderProblems(changeLog.getChangeLogParameters(), changeLog);
  }

  /**
   * A value still holding a {@code ${...}} placeholder: Liquibase leaves a placeholder as it is
   * when its parameter was set without a value (for example to {@code null} through the Java API),
   * and the tables would otherwise be named after the placeholder.
   */
  private static Optional<String> unsubstituted(String parameter, @Nullable String value) {
    if (value != null && UNSUBSTITUTED.matcher(value).find()) {
      return Optional.of(
          parameter
              + " is '"
              + value
              + "': the changelog parameter was not substituted; give it a value"
              + (parameter.equals("relayer.prefix") ? " (an empty string for no prefix)" : ""));
    }
    return Optional.empty();
  }

  // RawSqlStatement is deprecated for RawParameterizedSqlStatement, which Liquibase runs as a JDBC
  // prepared statement: the DDL here has no parameters and runs as a plain statement.
  @Override
  @SuppressWarnings("deprecation")
  public SqlStatement[] generateStatements(Database database) {
    return PostgreSqlOutboxSchema.stepStatements(options(), step()).stream()
        .map(RawSqlStatement::new)
        .toArray(SqlStatement[]::new);
  }

  @Override
  public String getConfirmationMessage() {
    // "objects", not "tables": step 3 creates an index only.
    return "Relayer objects of schema version "
        + (version == null ? "1" : version.trim())
        + " exist in schema "
        + schema
        + " with prefix '"
        + (prefix == null ? "" : prefix)
        + "'";
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
    List<String> problems = expandedValues();
    if (problems.isEmpty()) {
      try {
        options();
        step();
      } catch (InvalidInputException e) {
        problems = e.problems();
      }
    }
    problems.forEach(problem -> errors.addError(errorMessage(problem)));
    return errors;
  }
}
