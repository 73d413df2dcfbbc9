package dev.relayer.inbox;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * A fresh database with Relayer's tables and the consumer's own table {@code billed}, and a handler
 * that bills each message it is given, failing on request.
 */
public final class InboxFixture implements AutoCloseable {

  static final Table<Record> BILLED = table(name("billed"));
  static final Field<UUID> MESSAGE_ID = field(name("message_id"), UUID.class);
  static final Field<String> MESSAGE_TYPE = field(name("message_type"), String.class);
  static final Field<String> TENANT_ID = field(name("tenant_id"), String.class);

  private final TestDatabase database;
  public final DSLContext dsl;
  public final RelayerStore store;

  /** Every message the handler was called with, failed calls included, in call order. */
  public final List<IncomingMessage> calls = new CopyOnWriteArrayList<>();

  /** How many of the next calls fail after writing their row (so that a rollback shows). */
  public final AtomicInteger failNext = new AtomicInteger();

  public InboxFixture() {
    database = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(database.dataSource(), SchemaOptions.defaults());
    dsl = DSL.using(database.dataSource(), SQLDialect.POSTGRES);
    dsl.execute(
        "create table billed (message_id uuid primary key, message_type text not null,"
            + " tenant_id text)");
    store = RelayerStore.create(StoreOptions.defaults());
  }

  public InboxGuard guard(String consumer) {
    return InboxGuard.create(store, dsl, consumer);
  }

  /** Bills the message in the guard's transaction; fails after the insert when asked to. */
  public final InboxHandler bill =
      (tx, message) -> {
        calls.add(message);
        tx.insertInto(BILLED, MESSAGE_ID, MESSAGE_TYPE, TENANT_ID)
            .values(message.messageId(), message.messageType(), message.tenantId())
            .execute();
        if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          throw new IllegalStateException("billing is down (test)");
        }
      };

  /** Rows in {@code billed}. */
  public int billed() {
    return dsl.fetchCount(BILLED);
  }

  /** The tenant billed for {@code messageId}. */
  public String billedTenant(UUID messageId) {
    return dsl.select(TENANT_ID).from(BILLED).where(MESSAGE_ID.eq(messageId)).fetchOne(TENANT_ID);
  }

  /** Rows in {@code billed} for {@code messageId}. */
  public int billedRows(UUID messageId) {
    return dsl.fetchCount(BILLED, MESSAGE_ID.eq(messageId));
  }

  /** Inbox rows of {@code consumer} for {@code messageId}. */
  public int inboxRows(String consumer, UUID messageId) {
    return dsl.fetchCount(
        table(name("public", "relayer_inbox")),
        field(name("consumer"), String.class)
            .eq(consumer)
            .and(field(name("message_id"), UUID.class).eq(messageId)));
  }

  /** A message as the dispatcher hands it to a transport. */
  public static OutgoingMessage message(String type, String tenantId) {
    return new OutgoingMessage(
        UUID.randomUUID(),
        type,
        Map.of("x-order", "42"),
        "{\"orderId\":42}".getBytes(UTF_8),
        null,
        tenantId);
  }

  @Override
  public void close() {
    database.close();
  }
}
