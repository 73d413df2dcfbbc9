package dev.relayer.store.internal;

import dev.relayer.api.SchemaMismatchException;
import dev.relayer.schema.SchemaNames;
import dev.relayer.schema.SchemaOptions;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.Configuration;
import org.jooq.DSLContext;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.jooq.conf.MappedSchema;
import org.jooq.conf.MappedTable;
import org.jooq.conf.ParamType;
import org.jooq.conf.RenderMapping;
import org.jooq.conf.RenderNameCase;
import org.jooq.conf.RenderQuotedNames;
import org.jooq.conf.Settings;
import org.jooq.conf.StatementType;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * Turns the caller's {@link DSLContext} into one that renders the generated {@code
 * "relayer"."relayer_*"} names as the configured schema and prefix, on the caller's connection and
 * transaction, and that reports missing tables or columns as {@link SchemaMismatchException}.
 */
public final class StoreDsl {

  /** Schema name the generated classes carry. */
  public static final String GENERATED_SCHEMA = "relayer";

  private static final Pattern GENERATED_TABLE = Pattern.compile("relayer_(.*)");

  private final SchemaNames names;
  private final RenderMapping mapping;
  private final ExecuteListener translator;

  public StoreDsl(SchemaOptions schema) {
    this.names = schema.names();
    this.mapping =
        new RenderMapping()
            .withSchemata(
                new MappedSchema()
                    .withInput(GENERATED_SCHEMA)
                    .withOutput(schema.schema())
                    .withTables(
                        new MappedTable()
                            .withInputExpression(GENERATED_TABLE)
                            .withOutput(Matcher.quoteReplacement(schema.tablePrefix()) + "$1")));
    this.translator = new MissingObjectTranslator(names);
  }

  public SchemaNames names() {
    return names;
  }

  /**
   * The caller's context, mapped to this store's schema and prefix. Every value is a bind value
   * whatever the caller's settings say ({@code statementType}, {@code paramType}): an inlined
   * literal is read differently under {@code standard_conforming_strings = off}, and error texts
   * quote what brokers refused.
   */
  public DSLContext map(DSLContext caller) {
    Configuration configuration = caller.configuration();
    Settings settings = (Settings) configuration.settings().clone();
    settings
        .withStatementType(StatementType.PREPARED_STATEMENT)
        .withParamType(ParamType.INDEXED)
        .withRenderMapping(mapping)
        .withRenderSchema(true)
        .withRenderQuotedNames(RenderQuotedNames.ALWAYS)
        .withRenderNameCase(RenderNameCase.AS_IS);
    return DSL.using(configuration.derive(settings).deriveAppending(translator));
  }

  /**
   * SQLState 42P01 (undefined table) and 42703 (undefined column) mean the changelog was not
   * applied for this schema and prefix, or the tables have another shape.
   */
  private static final class MissingObjectTranslator implements ExecuteListener {
    private static final long serialVersionUID = 1L;
    private final transient SchemaNames names;

    MissingObjectTranslator(SchemaNames names) {
      this.names = names;
    }

    @Override
    public void exception(ExecuteContext ctx) {
      SQLException sqlException = ctx.sqlException();
      if (sqlException != null) {
        SchemaMismatchException mismatch = mismatch(names, ctx.sql(), sqlException);
        if (mismatch != null) {
          ctx.exception(mismatch);
        }
      }
    }
  }

  /**
   * What a failed statement that Relayer ran over JDBC throws: a {@link SchemaMismatchException}
   * where jOOQ's path would throw one, else a {@link DataAccessException} as jOOQ would.
   */
  public RuntimeException translate(String sql, SQLException sqlException) {
    SchemaMismatchException mismatch = mismatch(names, sql, sqlException);
    return mismatch != null
        ? mismatch
        : new DataAccessException("SQL [" + sql + "]; " + sqlException.getMessage(), sqlException);
  }

  /**
   * SQLStates that mean the tables are not what Relayer's changelog creates: 42P01 (undefined
   * table), 42703 (undefined column), 3F000 (undefined schema), and — since Relayer binds every
   * value with its column's type and fills every NOT NULL column — 42804 (datatype mismatch), 42883
   * (undefined function or operator, such as {@code text + integer}) and 23502 (not-null
   * violation).
   */
  private static final Set<String> MISMATCH_STATES =
      Set.of("42P01", "42703", "3F000", "42804", "42883", "23502");

  /**
   * A failure with one of {@link #MISMATCH_STATES} as a {@link SchemaMismatchException} naming the
   * tables {@code sql} refers to; null for others.
   */
  private static @Nullable SchemaMismatchException mismatch(
      SchemaNames names, String sql, SQLException sqlException) {
    String state = sqlException.getSQLState();
    if (!MISMATCH_STATES.contains(state)) {
      return null;
    }
    List<String> referenced = new ArrayList<>();
    String text = sql == null ? "" : sql;
    for (String base :
        List.of(
            SchemaNames.OUTBOX_DEAD,
            SchemaNames.OUTBOX,
            SchemaNames.INBOX,
            SchemaNames.LEASES,
            SchemaNames.OPERATIONS)) {
      String qualified = names.qualified(base);
      if (text.contains(qualified) && referenced.stream().noneMatch(r -> r.equals(qualified))) {
        referenced.add(qualified);
      }
    }
    String objects = referenced.isEmpty() ? "Relayer's tables" : String.join(", ", referenced);
    String what =
        switch (state) {
          case "42703" -> "has a column missing or of another shape: ";
          case "42804", "42883", "23502" ->
              "has a column of another type or nullability (see verifySchema): ";
          default -> "is missing (or its schema is): ";
        };
    return new SchemaMismatchException(
        objects,
        "Relayer table "
            + what
            + objects
            + ". Apply Relayer's changelog or script for schema "
            + names.schema()
            + " and prefix '"
            + names.prefix()
            + "' ("
            + sqlException.getMessage()
            + ")",
        sqlException);
  }
}
