package dev.relayer.schema;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.TextChecks;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Where Relayer's tables live: a PostgreSQL schema and a table-name prefix. Tables are named {@code
 * <prefix><base>} in {@code <schema>}; for example the defaults give {@code
 * "public"."relayer_outbox"}.
 *
 * <p>Construction validates the schema, the prefix and every identifier derived from them (tables,
 * indexes, constraints; see {@link SchemaNames}), so that an invalid combination fails before any
 * SQL exists, naming the identifier and its byte length.
 *
 * @param schema the schema; default {@value #DEFAULT_SCHEMA}; any identifier that is not blank
 *     (only whitespace), kept exactly as given (case, spaces, quotes and Unicode included)
 * @param tablePrefix prepended to every table, index and constraint name; default {@value
 *     #DEFAULT_PREFIX}; may be empty
 */
public record SchemaOptions(String schema, String tablePrefix) {

  public static final String DEFAULT_SCHEMA = "public";
  public static final String DEFAULT_PREFIX = "relayer_";

  /** Schema names starting with this (in lower case) are PostgreSQL's own. */
  public static final String RESERVED_SCHEMA_PREFIX = "pg_";

  public SchemaOptions {
    List<String> problems = new ArrayList<>();
    Identifiers.problem("schema", schema).or(() -> schemaProblem(schema)).ifPresent(problems::add);
    if (tablePrefix == null) {
      problems.add("table prefix must not be null (use \"\" for no prefix)");
    } else if (TextChecks.problem("table prefix", tablePrefix).isPresent()) {
      problems.add(TextChecks.problem("table prefix", tablePrefix).get());
    } else if (tablePrefix.contains("${")) {
      problems.add(placeholderProblem("table prefix", tablePrefix));
    } else {
      problems.addAll(SchemaNames.problems(tablePrefix));
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
  }

  /**
   * Rules for a schema beyond those of every identifier: not blank (jOOQ's render mapping ignores a
   * blank output schema, so the store would write to the tables of another schema).
   */
  private static Optional<String> schemaProblem(String schema) {
    if (schema.isBlank()) {
      return Optional.of(
          "schema "
              + Identifiers.quoteForMessage(schema)
              + " must not be blank (only whitespace): give a visible name");
    }
    if (schema.contains("${")) {
      return Optional.of(placeholderProblem("schema", schema));
    }
    if (schema.startsWith(RESERVED_SCHEMA_PREFIX)) {
      return Optional.of(
          "schema "
              + Identifiers.quoteForMessage(schema)
              + " must not start with \""
              + RESERVED_SCHEMA_PREFIX
              + "\": PostgreSQL reserves such names for its system schemas");
    }
    return Optional.empty();
  }

  /**
   * <code>${</code> starts a Liquibase changelog parameter: Liquibase expands it in the changelog's
   * values (and a value that refers to itself, without end), so the changelog would create other
   * tables than the script and the store name.
   */
  private static String placeholderProblem(String role, String value) {
    return role
        + " "
        + Identifiers.quoteForMessage(value)
        + " must not contain \"${\": Liquibase would expand it as a changelog parameter";
  }

  /** Schema {@value #DEFAULT_SCHEMA}, prefix {@value #DEFAULT_PREFIX}. */
  public static SchemaOptions defaults() {
    return new SchemaOptions(DEFAULT_SCHEMA, DEFAULT_PREFIX);
  }

  /** The given schema and prefix. */
  @SuppressWarnings("NullAway") // a null value is invalid input, which the constructor reports
  public static SchemaOptions of(@Nullable String schema, @Nullable String tablePrefix) {
    return new SchemaOptions(schema, tablePrefix);
  }

  /** Every identifier derived from these options. */
  public SchemaNames names() {
    return new SchemaNames(this);
  }

  @Override
  public String toString() {
    return "SchemaOptions[schema="
        + Identifiers.quote(schema)
        + ", tablePrefix="
        + Identifiers.quote(Objects.toString(tablePrefix))
        + "]";
  }
}
