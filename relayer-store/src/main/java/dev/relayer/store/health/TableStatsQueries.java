package dev.relayer.store.health;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.function;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.val;

import dev.relayer.schema.SchemaNames;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/** The statement on {@code pg_stat_user_tables}: dead tuples of Relayer's tables. */
final class TableStatsQueries {

  /** Relayer's tables, in report order. */
  static final List<String> TABLES =
      List.of(SchemaNames.OUTBOX, SchemaNames.OUTBOX_DEAD, SchemaNames.INBOX, SchemaNames.LEASES);

  private static final Table<Record> STATS = table(name("pg_catalog", "pg_stat_user_tables"));
  private static final Field<Object> RELID = field(name("relid"), SQLDataType.OTHER);
  private static final Field<String> SCHEMA = field(name("schemaname"), String.class);
  private static final Field<String> TABLE = field(name("relname"), String.class);
  private static final Field<Long> LIVE = field(name("n_live_tup"), Long.class);
  private static final Field<Long> DEAD = field(name("n_dead_tup"), Long.class);
  private static final Field<OffsetDateTime> LAST_VACUUM =
      field(name("last_vacuum"), SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Field<OffsetDateTime> LAST_AUTOVACUUM =
      field(name("last_autovacuum"), SQLDataType.TIMESTAMPWITHTIMEZONE);

  private TableStatsQueries() {}

  /** Every one of {@link #TABLES} that exists, in that order. */
  static List<TableDeadTuples> deadTuples(DSLContext dsl, SchemaNames names) {
    List<Field<Object>> relations = new ArrayList<>();
    for (String base : TABLES) {
      relations.add(function("to_regclass", SQLDataType.OTHER, val(names.qualified(base))));
    }
    var rows =
        dsl.select(SCHEMA, TABLE, LIVE, DEAD, LAST_VACUUM, LAST_AUTOVACUUM)
            .from(STATS)
            .where(RELID.in(relations))
            .fetch();
    List<TableDeadTuples> result = new ArrayList<>();
    for (String base : TABLES) {
      for (var row : rows) {
        if (row.value1().equals(names.schema()) && row.value2().equals(names.name(base))) {
          Optional<Instant> vacuum = instant(row.value5());
          Optional<Instant> autovacuum = instant(row.value6());
          Optional<Instant> latest =
              vacuum.isEmpty()
                  ? autovacuum
                  : autovacuum.filter(a -> a.isAfter(vacuum.get())).or(() -> vacuum);
          result.add(
              new TableDeadTuples(
                  base, names.qualified(base), row.value3(), row.value4(), latest, autovacuum));
        }
      }
    }
    return result;
  }

  static Optional<Instant> instant(OffsetDateTime at) {
    return Optional.ofNullable(at).map(OffsetDateTime::toInstant);
  }
}
