package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_INBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_LEASES;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX_DEAD;

import dev.relayer.api.SchemaMismatchException;
import dev.relayer.schema.SchemaNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;

/** Checks, through the catalog, that the four tables exist with every column Relayer uses. */
final class SchemaVerifier {

  private SchemaVerifier() {}

  static void verify(DSLContext dsl, SchemaNames names) {
    Map<String, Table<?>> tables = new LinkedHashMap<>();
    tables.put(SchemaNames.OUTBOX, RELAYER_OUTBOX);
    tables.put(SchemaNames.OUTBOX_DEAD, RELAYER_OUTBOX_DEAD);
    tables.put(SchemaNames.INBOX, RELAYER_INBOX);
    tables.put(SchemaNames.LEASES, RELAYER_LEASES);
    Table<?> attributes = DSL.table(DSL.name("pg_catalog", "pg_attribute"));
    Field<String> attname = DSL.field(DSL.name("attname"), String.class);
    Field<Object> attrelid = DSL.field(DSL.name("attrelid"));
    Field<Integer> attnum = DSL.field(DSL.name("attnum"), Integer.class);
    Field<Boolean> attisdropped = DSL.field(DSL.name("attisdropped"), Boolean.class);
    for (Map.Entry<String, Table<?>> entry : tables.entrySet()) {
      String qualified = names.qualified(entry.getKey());
      List<String> columns =
          dsl.select(attname)
              .from(attributes)
              .where(attrelid.eq(DSL.function("to_regclass", Object.class, DSL.val(qualified))))
              .and(attnum.gt(0))
              .and(attisdropped.isFalse())
              .fetch(attname);
      if (columns.isEmpty()) {
        throw new SchemaMismatchException(
            qualified,
            "Relayer table "
                + qualified
                + " does not exist; apply Relayer's changelog or script for this schema and prefix",
            null);
      }
      for (Field<?> field : entry.getValue().fields()) {
        if (!columns.contains(field.getName())) {
          throw new SchemaMismatchException(
              qualified + "." + field.getName(),
              "Relayer table " + qualified + " lacks column " + field.getName(),
              null);
        }
      }
    }
  }
}
