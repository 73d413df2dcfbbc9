package dev.relayer.store.schema;

import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.schema.SchemaNames;
import dev.relayer.schema.SchemaOptions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConnectionProvider;
import org.jspecify.annotations.Nullable;

/**
 * {@code relayer db verify}: compares an install with the current schema through PostgreSQL's
 * catalog, without a hand-written list of what the schema holds. It runs the current schema
 * script's statements (every step, {@link PostgreSqlOutboxSchema#createStatements}) as temporary
 * tables ({@code pg_temp}, same prefix), reads both catalogs — columns from {@code pg_attribute}
 * (type by {@code format_type}, {@code NOT NULL}, default by {@code pg_get_expr}, identity),
 * constraints from {@code pg_constraint} (kind and {@code pg_get_constraintdef}), indexes from
 * {@code pg_index} (the {@code pg_get_indexdef} text from {@code USING} on, which holds no schema
 * name) — and rolls the temporary tables back. Names are compared as created: both sides carry the
 * same prefix.
 *
 * <p>A finding is something the install lacks or has in another shape; an object the script does
 * not create (an index or a column of your own) is not one. A missing table is one finding, not one
 * per column. An install at an older version gets a finding for each object of the later steps it
 * lacks, with the upgrade to run: a version-1 install (the four tables, no operations table) for
 * the operations table, the lane key index and the idempotency keys table, a version-2 install for
 * the lane key index and the keys table, a version-3 install for the keys table. An index that a
 * {@code CREATE INDEX CONCURRENTLY} left invalid is a finding too. {@code NOT NULL} constraints,
 * which PostgreSQL 18 lists in {@code pg_constraint}, are compared as the columns' nullability.
 */
public final class SchemaDrift {

  private SchemaDrift() {}

  /**
   * The tables of schema version 1; the operations table is version 2, the lane key index version
   * 3, the idempotency keys table version 4.
   */
  private static final List<String> VERSION_ONE =
      List.of(SchemaNames.OUTBOX, SchemaNames.OUTBOX_DEAD, SchemaNames.INBOX, SchemaNames.LEASES);

  private record Column(String type, boolean notNull, String defaultValue, String identity) {}

  private record Constraint(String table, String kind, String definition) {}

  private record Index(String table, String definition, boolean valid) {}

  /** One schema's objects, by table name and object name, in catalog order. */
  private record Catalog(
      Map<String, Map<String, Column>> tables,
      Map<String, Constraint> constraints,
      Map<String, Index> indexes) {}

  public static SchemaReport find(DSLContext dsl, SchemaNames names) {
    return dsl.connectionResult(connection -> inRolledBackTransaction(dsl, connection, names));
  }

  private static SchemaReport inRolledBackTransaction(
      DSLContext caller, Connection connection, SchemaNames names) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    Savepoint savepoint = null;
    if (autoCommit) {
      connection.setAutoCommit(false);
    } else {
      savepoint = connection.setSavepoint();
    }
    try {
      DSLContext dsl =
          DSL.using(caller.configuration().derive(new DefaultConnectionProvider(connection)));
      for (String statement : temporaryStatements(names)) {
        dsl.execute(statement);
      }
      List<String> tables = new ArrayList<>();
      for (String base : tableBases()) {
        tables.add(names.name(base));
      }
      Long expectedSchema = dsl.fetchOne("select pg_my_temp_schema()::bigint").get(0, Long.class);
      Catalog expected = catalog(dsl, Objects.requireNonNull(expectedSchema), tables);
      Long installedSchema =
          dsl.fetchOptional(
                  "select oid::bigint from pg_namespace where nspname = ?", names.schema())
              .map(r -> r.get(0, Long.class))
              .orElse(null);
      if (installedSchema == null) {
        return new SchemaReport(
            Optional.empty(),
            List.of(finding("schema", names.schema(), "missing (no Relayer tables installed)")));
      }
      Catalog installed = catalog(dsl, installedSchema, tables);
      return new SchemaReport(version(installed, names), compare(expected, installed, names));
    } finally {
      if (autoCommit) {
        connection.rollback();
        connection.setAutoCommit(true);
      } else {
        connection.rollback(savepoint);
      }
    }
  }

  /** A schema name no install uses, that the statements name in place of {@code pg_temp}. */
  private static final String PLACEHOLDER = "relayer_verify_placeholder_9f3c1b";

  /**
   * The current schema's statements for temporary tables of the install's prefix: generated for a
   * placeholder schema ({@link SchemaOptions} refuses {@code pg_} names), with every qualification
   * by it turned into {@code pg_temp}, and without {@code CREATE SCHEMA}. A quoted name followed by
   * {@code .} is always a schema: table, index and constraint names never are.
   */
  private static List<String> temporaryStatements(SchemaNames names) {
    String qualifier = "\"" + PLACEHOLDER + "\".";
    List<String> statements = new ArrayList<>();
    for (String statement :
        PostgreSqlOutboxSchema.createStatements(SchemaOptions.of(PLACEHOLDER, names.prefix()))) {
      if (!statement.startsWith("CREATE SCHEMA")) {
        statements.add(statement.replace(qualifier, "pg_temp."));
      }
    }
    return statements;
  }

  private static List<String> tableBases() {
    List<String> bases = new ArrayList<>(VERSION_ONE);
    bases.add(SchemaNames.OPERATIONS);
    bases.add(SchemaNames.IDEMPOTENCY_KEYS);
    return bases;
  }

  /**
   * The last step whose objects all exist: 1 for the four tables, 2 with the operations table, 3
   * with the lane key index too (invalid or not: an invalid one is a finding of its own), 4 with
   * the idempotency keys table too.
   */
  private static Optional<Integer> version(Catalog installed, SchemaNames names) {
    for (String base : VERSION_ONE) {
      if (!installed.tables().containsKey(names.name(base))) {
        return Optional.empty();
      }
    }
    if (!installed.tables().containsKey(names.name(SchemaNames.OPERATIONS))) {
      return Optional.of(1);
    }
    if (!installed.indexes().containsKey(names.name(SchemaNames.OUTBOX_LANE_KEY_INDEX))) {
      return Optional.of(2);
    }
    return Optional.of(
        installed.tables().containsKey(names.name(SchemaNames.IDEMPOTENCY_KEYS)) ? 4 : 3);
  }

  /**
   * What a finding on an object of a later step than the install's adds: the version and the
   * upgrade to run.
   */
  public static String upgradeAdvice(int installedVersion) {
    String changesets =
        switch (installedVersion) {
          case 1 ->
              "changesets relayer-2-operations, relayer-3-lane-key-index and"
                  + " relayer-4-idempotency-keys";
          case 2 -> "changesets relayer-3-lane-key-index and relayer-4-idempotency-keys";
          default -> "changeset relayer-4-idempotency-keys";
        };
    return "the install is at schema version "
        + installedVersion
        + "; upgrade it to version "
        + PostgreSqlOutboxSchema.CURRENT_VERSION
        + " with Relayer's changelog ("
        + changesets
        + ") or with 'relayer db script --provider postgres --from "
        + installedVersion
        + "'";
  }

  private static Catalog catalog(DSLContext dsl, long schema, List<String> tables) {
    String[] wanted = tables.toArray(String[]::new);
    Map<String, Map<String, Column>> columns = new LinkedHashMap<>();
    for (String table : tables) {
      Map<String, Column> found = new LinkedHashMap<>();
      for (Record r :
          dsl.fetch(
              "select a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,"
                  + " coalesce(pg_get_expr(d.adbin, d.adrelid), ''), a.attidentity::text"
                  + " from pg_attribute a join pg_class c on c.oid = a.attrelid"
                  + " left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum"
                  + " where c.relnamespace = ?::oid and c.relname = ? and c.relkind in ('r', 'p')"
                  + " and a.attnum > 0 and not a.attisdropped order by a.attnum",
              schema,
              table)) {
        found.put(
            r.get(0, String.class),
            new Column(
                r.get(1, String.class),
                Boolean.TRUE.equals(r.get(2, Boolean.class)),
                r.get(3, String.class),
                r.get(4, String.class)));
      }
      if (!found.isEmpty()) {
        columns.put(table, found);
      }
    }
    Map<String, Constraint> constraints = new LinkedHashMap<>();
    for (Record r :
        dsl.fetch(
            "select k.conname, c.relname, k.contype::text, pg_get_constraintdef(k.oid)"
                + " from pg_constraint k join pg_class c on c.oid = k.conrelid"
                + " where c.relnamespace = ?::oid and c.relname = any(?) and k.contype <> 'n'"
                + " order by c.relname, k.conname",
            schema,
            wanted)) {
      constraints.put(
          r.get(0, String.class),
          new Constraint(r.get(1, String.class), r.get(2, String.class), r.get(3, String.class)));
    }
    Map<String, Index> indexes = new LinkedHashMap<>();
    for (Record r :
        dsl.fetch(
            "select i.relname, t.relname, pg_get_indexdef(x.indexrelid), x.indisvalid"
                + " from pg_index x join pg_class i on i.oid = x.indexrelid"
                + " join pg_class t on t.oid = x.indrelid"
                + " where t.relnamespace = ?::oid and t.relname = any(?)"
                + " and not exists (select 1 from pg_constraint k where k.conindid = x.indexrelid"
                + " and k.conrelid = x.indrelid and k.contype in ('p', 'u', 'x'))"
                + " order by t.relname, i.relname",
            schema,
            wanted)) {
      indexes.put(
          r.get(0, String.class),
          new Index(
              r.get(1, String.class),
              usingPart(r.get(2, String.class)),
              Boolean.TRUE.equals(r.get(3, Boolean.class))));
    }
    return new Catalog(columns, constraints, indexes);
  }

  /** {@code USING btree (lane, id) WHERE …}: the index definition without its name and table. */
  private static String usingPart(String definition) {
    int using = definition.indexOf(" USING ");
    return using < 0 ? definition : definition.substring(using + 1);
  }

  private static List<SchemaFinding> compare(
      Catalog expected, Catalog installed, SchemaNames names) {
    List<SchemaFinding> findings = new ArrayList<>();
    Optional<Integer> version = version(installed, names);
    for (Map.Entry<String, Map<String, Column>> table : expected.tables().entrySet()) {
      String name = table.getKey();
      Map<String, Column> columns = installed.tables().get(name);
      if (columns == null) {
        String problem = "table " + name + " missing";
        boolean laterStep =
            name.equals(names.name(SchemaNames.OPERATIONS))
                || name.equals(names.name(SchemaNames.IDEMPOTENCY_KEYS));
        if (version.isPresent() && laterStep) {
          problem += ": " + upgradeAdvice(version.get());
        }
        findings.add(new SchemaFinding("table", name, problem));
        continue;
      }
      for (Map.Entry<String, Column> column : table.getValue().entrySet()) {
        compareColumn(
            findings,
            name + "." + column.getKey(),
            column.getValue(),
            columns.get(column.getKey()));
      }
    }
    for (Map.Entry<String, Constraint> entry : expected.constraints().entrySet()) {
      Constraint want = entry.getValue();
      if (!installed.tables().containsKey(want.table())) {
        continue;
      }
      String name = entry.getKey();
      Constraint have = installed.constraints().get(name);
      if (have == null) {
        findings.add(finding("constraint", name, "missing on " + want.table()));
      } else if (!have.table().equals(want.table())) {
        findings.add(
            finding("constraint", name, "is on " + have.table() + ", expected " + want.table()));
      } else if (!have.kind().equals(want.kind()) || !have.definition().equals(want.definition())) {
        findings.add(
            finding(
                "constraint", name, "is " + have.definition() + ", expected " + want.definition()));
      }
    }
    for (Map.Entry<String, Index> entry : expected.indexes().entrySet()) {
      Index want = entry.getValue();
      if (!installed.tables().containsKey(want.table())) {
        continue;
      }
      String name = entry.getKey();
      Index have = installed.indexes().get(name);
      if (have == null) {
        boolean laterStep =
            name.equals(names.name(SchemaNames.OUTBOX_LANE_KEY_INDEX))
                && version.filter(v -> v < 3).isPresent();
        findings.add(
            finding(
                "index", name, laterStep ? "missing: " + upgradeAdvice(version.get()) : "missing"));
      } else if (!have.table().equals(want.table())) {
        findings.add(
            finding("index", name, "is on " + have.table() + ", expected " + want.table()));
      } else if (!have.definition().equals(want.definition())) {
        findings.add(
            finding("index", name, "is " + have.definition() + ", expected " + want.definition()));
      } else if (!have.valid()) {
        findings.add(
            finding(
                "index",
                name,
                "is invalid (a CREATE INDEX CONCURRENTLY that did not finish) and is not used;"
                    + " drop it and create it again"));
      }
    }
    return findings;
  }

  /** A finding on the {@code kind} named {@code name}: "{@code kind name problem}". */
  private static SchemaFinding finding(String kind, String name, String problem) {
    return new SchemaFinding(kind, name, kind + " " + name + " " + problem);
  }

  private static void compareColumn(
      List<SchemaFinding> findings, String name, Column want, @Nullable Column have) {
    if (have == null) {
      findings.add(finding("column", name, "missing"));
      return;
    }
    if (!have.type().equals(want.type())) {
      findings.add(
          finding("column", name, "has type " + have.type() + ", expected " + want.type()));
    }
    if (have.notNull() != want.notNull()) {
      findings.add(
          finding(
              "column",
              name,
              have.notNull()
                  ? "is NOT NULL, expected nullable"
                  : "is nullable, expected NOT NULL"));
    }
    if (!have.defaultValue().equals(want.defaultValue())) {
      findings.add(
          finding(
              "column",
              name,
              "has "
                  + describeDefault(have.defaultValue())
                  + ", expected "
                  + describeDefault(want.defaultValue())));
    }
    if (!have.identity().equals(want.identity())) {
      findings.add(
          finding(
              "column",
              name,
              "is "
                  + describeIdentity(have.identity())
                  + ", expected "
                  + describeIdentity(want.identity())));
    }
  }

  private static String describeDefault(String expression) {
    return expression.isEmpty() ? "no default" : "default " + expression;
  }

  private static String describeIdentity(String identity) {
    return switch (identity) {
      case "a" -> "GENERATED ALWAYS AS IDENTITY";
      case "d" -> "GENERATED BY DEFAULT AS IDENTITY";
      default -> "not an identity column";
    };
  }
}
