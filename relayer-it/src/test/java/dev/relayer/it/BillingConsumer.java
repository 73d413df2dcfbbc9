package dev.relayer.it;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.relayer.store.InboxOutcome;
import dev.relayer.store.RelayerStore;
import dev.relayer.testkit.transport.ConsumedMessage;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The application side of the end-to-end tests, written as a consumer would be: for each message a
 * real broker consumer hands over, one transaction records the message id in the inbox and, only
 * when the id is new, does the consumer's work (an invoice row). Both commit or roll back together.
 * The broker consumer acknowledges the message only after {@link #handle} returned, so a consumer
 * that dies before the commit gets the message again.
 */
final class BillingConsumer {

  /** The consumer name the inbox records ids under. */
  static final String NAME = "billing";

  private static final Table<Record> INVOICES = table(name("invoices"));
  private static final Field<UUID> MESSAGE_ID = field(name("message_id"), SQLDataType.UUID);
  private static final Field<byte[]> BODY = field(name("body"), SQLDataType.BLOB);
  private static final Table<Record> INBOX = table(name("public", "relayer_inbox"));
  private static final Field<String> INBOX_CONSUMER = field(name("consumer"), SQLDataType.VARCHAR);

  /** A message as the broker delivered it and what the inbox said about its id. */
  record Received(ConsumedMessage message, InboxOutcome outcome) {}

  private final RelayerStore store;
  private final DSLContext dsl;
  private final List<Received> received = new CopyOnWriteArrayList<>();

  BillingConsumer(RelayerStore store, DSLContext dsl) {
    this.store = store;
    this.dsl = dsl;
  }

  /** Creates the consumer's own table. */
  static void createTables(DSLContext dsl) {
    dsl.createTable(INVOICES)
        .column(MESSAGE_ID.getName(), SQLDataType.UUID.notNull())
        .column(BODY.getName(), SQLDataType.BLOB.notNull())
        .primaryKey(MESSAGE_ID.getName())
        .execute();
  }

  /** Records the id and, if it is new, invoices the order, in one transaction. */
  InboxOutcome handle(ConsumedMessage message) {
    UUID messageId = UUID.fromString(message.messageId());
    InboxOutcome outcome =
        dsl.transactionResult(
            tx -> {
              InboxOutcome recorded = store.tryRecordInbox(tx.dsl(), NAME, messageId);
              if (recorded == InboxOutcome.FIRST) {
                tx.dsl()
                    .insertInto(INVOICES)
                    .columns(MESSAGE_ID, BODY)
                    .values(messageId, message.body())
                    .execute();
              }
              return recorded;
            });
    received.add(new Received(message, outcome));
    return outcome;
  }

  /** Every delivery handled so far, in the order the broker consumer handed them over. */
  List<Received> received() {
    return List.copyOf(received);
  }

  /** Message ids the consumer's work was done for (one invoice each). */
  List<UUID> invoicedIds() {
    return dsl.select(MESSAGE_ID).from(INVOICES).fetch(MESSAGE_ID);
  }

  /** Message ids the inbox holds for this consumer. */
  List<UUID> inboxIds() {
    return dsl.select(MESSAGE_ID).from(INBOX).where(INBOX_CONSUMER.eq(NAME)).fetch(MESSAGE_ID);
  }
}
