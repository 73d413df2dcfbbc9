package dev.relayer.it.chaos;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The chaos run's own tables, next to Relayer's: {@code chaos_committed}, the producers' business
 * table (one row per message, written in the transaction that enqueued it), and {@code
 * chaos_poison_requests}, poison the test asks producers to commit.
 */
final class ChaosTables {

  static final Table<Record> COMMITTED = table(name("public", "chaos_committed"));
  static final Field<UUID> MESSAGE_ID = field(name("message_id"), SQLDataType.UUID);
  static final Field<Long> OUTBOX_ID = field(name("outbox_id"), SQLDataType.BIGINT);
  static final Field<String> ORDERING_KEY = field(name("ordering_key"), SQLDataType.CLOB);
  static final Field<Boolean> POISON = field(name("poison"), SQLDataType.BOOLEAN);
  static final Field<String> PRODUCER = field(name("producer"), SQLDataType.CLOB);

  static final Table<Record> POISON_REQUESTS = table(name("public", "chaos_poison_requests"));
  static final Field<Long> REQUEST_ID = field(name("id"), SQLDataType.BIGINT);
  static final Field<Boolean> REQUEST_ORDERED = field(name("ordered"), SQLDataType.BOOLEAN);

  /** Header carrying the ordering key, so the consumer sees it on each delivery. */
  static final String KEY_HEADER = "chaos-key";

  private ChaosTables() {}

  static void create(DSLContext dsl) {
    dsl.createTable(COMMITTED)
        .column(MESSAGE_ID.getName(), SQLDataType.UUID.notNull())
        .column(OUTBOX_ID.getName(), SQLDataType.BIGINT.notNull())
        .column(ORDERING_KEY.getName(), SQLDataType.CLOB.null_())
        .column(POISON.getName(), SQLDataType.BOOLEAN.notNull())
        .column(PRODUCER.getName(), SQLDataType.CLOB.notNull())
        .primaryKey(MESSAGE_ID.getName())
        .execute();
    dsl.createTable(POISON_REQUESTS)
        .column(REQUEST_ID.getName(), SQLDataType.BIGINT.notNull().identity(true))
        .column(REQUEST_ORDERED.getName(), SQLDataType.BOOLEAN.notNull())
        .primaryKey(REQUEST_ID.getName())
        .execute();
  }
}
