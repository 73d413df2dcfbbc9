package dev.relayer.store.schema;

import static dev.relayer.jooq.generated.Tables.RELAYER_IDEMPOTENCY_KEYS;
import static dev.relayer.jooq.generated.Tables.RELAYER_INBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_LEASES;
import static dev.relayer.jooq.generated.Tables.RELAYER_OPERATIONS;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX_DEAD;

import dev.relayer.api.SchemaMismatchException;
import dev.relayer.schema.SchemaNames;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Checks, through the catalog, that the six tables exist with every column Relayer uses, each of
 * the type and nullability the generated classes carry (the changelog's own), and that the lane key
 * index of schema version 3 exists and is valid. A missing operations table next to the other four
 * is an install at schema version 1, a missing lane key index next to those five tables one at
 * version 2, and a missing idempotency keys table next to the rest one at version 3, each named as
 * such with the upgrade. Without the index Relayer would run, but the ordered-lane claim would read
 * every pending row of a lane on each pass, so the check refuses to start rather than let a large
 * outbox slow every lane down.
 */
public final class SchemaVerifier {

  private SchemaVerifier() {}

  /** A column as the catalog describes it. */
  private record Column(String type, boolean notNull) {}

  /** The generated table of each base name, in the order {@link #verify} checks them. */
  public static final Map<String, Table<?>> TABLES = tables();

  private static Map<String, Table<?>> tables() {
    Map<String, Table<?>> tables = new LinkedHashMap<>();
    tables.put(SchemaNames.OUTBOX, RELAYER_OUTBOX);
    tables.put(SchemaNames.OUTBOX_DEAD, RELAYER_OUTBOX_DEAD);
    tables.put(SchemaNames.INBOX, RELAYER_INBOX);
    tables.put(SchemaNames.LEASES, RELAYER_LEASES);
    tables.put(SchemaNames.OPERATIONS, RELAYER_OPERATIONS);
    tables.put(SchemaNames.IDEMPOTENCY_KEYS, RELAYER_IDEMPOTENCY_KEYS);
    return Collections.unmodifiableMap(tables);
  }

  /**
   * Checks every table, in the order of the steps that create them (the lane key index of step 3
   * before the idempotency keys table of step 4, so that a missing object names the install's
   * version rightly); throws naming the first mismatch.
   */
  public static void verify(DSLContext dsl, SchemaNames names) {
    for (String base : TABLES.keySet()) {
      if (base.equals(SchemaNames.IDEMPOTENCY_KEYS)) {
        verifyLaneKeyIndex(dsl, names);
      }
      verifyTable(dsl, names, base);
    }
  }

  /**
   * Checks that the lane key index (schema version 3) exists and is valid, in one catalog
   * statement: {@code to_regclass} of its quoted, qualified name, so an odd schema or prefix is
   * looked up as created. Only its existence is checked here; {@code relayer db verify} compares
   * its definition.
   */
  public static void verifyLaneKeyIndex(DSLContext dsl, SchemaNames names) {
    Table<?> indexes = DSL.table(DSL.name("pg_catalog", "pg_index"));
    Field<Object> indexrelid = DSL.field(DSL.name("indexrelid"));
    Field<Boolean> indisvalid = DSL.field(DSL.name("indisvalid"), Boolean.class);
    String qualified = names.qualified(SchemaNames.OUTBOX_LANE_KEY_INDEX);
    Boolean valid =
        dsl.select(indisvalid)
            .from(indexes)
            .where(indexrelid.eq(DSL.function("to_regclass", Object.class, DSL.val(qualified))))
            .fetchOne(indisvalid);
    if (valid == null) {
      throw new SchemaMismatchException(
          qualified,
          "Relayer index "
              + qualified
              + " does not exist: "
              + SchemaDrift.upgradeAdvice(2)
              + " for this schema and prefix (without the index every ordered-lane claim reads"
              + " all pending rows of its lane)",
          null);
    }
    if (!valid) {
      throw new SchemaMismatchException(
          qualified,
          "Relayer index "
              + qualified
              + " is not valid: a CREATE INDEX CONCURRENTLY is still building it or did not"
              + " finish; wait for the build, or drop the index and create it again",
          null);
    }
  }

  /** Checks one table ({@code base}, one of {@link #TABLES}) in one catalog statement. */
  public static void verifyTable(DSLContext dsl, SchemaNames names, String base) {
    Table<?> table = TABLES.get(base);
    if (table == null) {
      throw new IllegalArgumentException("no Relayer table " + base);
    }
    Table<?> attributes = DSL.table(DSL.name("pg_catalog", "pg_attribute"));
    Field<String> attname = DSL.field(DSL.name("attname"), String.class);
    Field<Object> attrelid = DSL.field(DSL.name("attrelid"));
    Field<Object> atttypid = DSL.field(DSL.name("atttypid"));
    Field<Object> atttypmod = DSL.field(DSL.name("atttypmod"));
    Field<Boolean> attnotnull = DSL.field(DSL.name("attnotnull"), Boolean.class);
    Field<Integer> attnum = DSL.field(DSL.name("attnum"), Integer.class);
    Field<Boolean> attisdropped = DSL.field(DSL.name("attisdropped"), Boolean.class);
    Field<String> type = DSL.function("format_type", String.class, atttypid, atttypmod);
    String qualified = names.qualified(base);
    Map<String, Column> columns = new HashMap<>();
    dsl.select(attname, type, attnotnull)
        .from(attributes)
        .where(attrelid.eq(DSL.function("to_regclass", Object.class, DSL.val(qualified))))
        .and(attnum.gt(0))
        .and(attisdropped.isFalse())
        .forEach(r -> columns.put(r.value1(), new Column(r.value2(), r.value3())));
    if (columns.isEmpty() && base.equals(SchemaNames.OPERATIONS)) {
      throw new SchemaMismatchException(
          qualified,
          "Relayer table "
              + qualified
              + " does not exist: "
              + SchemaDrift.upgradeAdvice(1)
              + " for this schema and prefix",
          null);
    }
    if (columns.isEmpty() && base.equals(SchemaNames.IDEMPOTENCY_KEYS)) {
      throw new SchemaMismatchException(
          qualified,
          "Relayer table "
              + qualified
              + " does not exist: "
              + SchemaDrift.upgradeAdvice(3)
              + " for this schema and prefix",
          null);
    }
    if (columns.isEmpty()) {
      throw new SchemaMismatchException(
          qualified,
          "Relayer table "
              + qualified
              + " does not exist; apply Relayer's changelog or script for this schema and prefix",
          null);
    }
    for (Field<?> field : table.fields()) {
      Column column = columns.get(field.getName());
      String where = qualified + "." + field.getName();
      if (column == null) {
        throw new SchemaMismatchException(
            where, "Relayer table " + qualified + " lacks column " + field.getName(), null);
      }
      String expectedType = postgresType(field.getDataType());
      if (!expectedType.equals(column.type())) {
        throw new SchemaMismatchException(
            where,
            "Relayer table "
                + qualified
                + " has column "
                + field.getName()
                + " of type "
                + column.type()
                + "; Relayer needs "
                + expectedType,
            null);
      }
      boolean expectedNotNull = !field.getDataType().nullable();
      if (expectedNotNull != column.notNull()) {
        throw new SchemaMismatchException(
            where,
            "Relayer table "
                + qualified
                + " has column "
                + field.getName()
                + (column.notNull() ? " NOT NULL" : " nullable")
                + "; Relayer needs it "
                + (expectedNotNull ? "NOT NULL" : "nullable"),
            null);
      }
    }
  }

  /** The name {@code format_type} gives the PostgreSQL type behind a generated column's type. */
  private static String postgresType(DataType<?> type) {
    DataType<?> sql = type.getSQLDataType();
    if (sql.equals(SQLDataType.BIGINT)) {
      return "bigint";
    }
    if (sql.equals(SQLDataType.INTEGER)) {
      return "integer";
    }
    if (sql.equals(SQLDataType.UUID)) {
      return "uuid";
    }
    if (sql.equals(SQLDataType.CLOB)) {
      return "text";
    }
    if (sql.equals(SQLDataType.JSONB)) {
      return "jsonb";
    }
    if (sql.equals(SQLDataType.BLOB)) {
      return "bytea";
    }
    if (sql.getTypeName().equals(SQLDataType.TIMESTAMPWITHTIMEZONE.getTypeName())) {
      return "timestamp with time zone";
    }
    throw new IllegalStateException("No PostgreSQL type known for " + type);
  }
}
