package dev.relayer.examples.orders;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.relayer.dispatch.Relayer;
import dev.relayer.store.InboxOutcome;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The consumer: ships each placed order once. Delivery is at least once (a crash after the broker
 * confirmed and before Relayer deleted the row sends the message again), so each message id goes
 * into Relayer's inbox in the same transaction as the shipment; a second delivery of the same id
 * finds it there and is dropped. The listener container acknowledges the delivery after the
 * transaction commits; an exception rolls back (inbox record included) and the broker redelivers.
 */
@Component
class Shipping {

  private static final Logger log = LoggerFactory.getLogger(Shipping.class);

  /** The consumer's name in the inbox: each consumer has its own record of what it processed. */
  static final String CONSUMER = "shipping";

  static final Table<Record> SHIPMENTS = table(name("shipments"));
  static final Field<Long> ORDER_ID = field(name("order_id"), Long.class);
  static final Field<UUID> MESSAGE_ID = field(name("message_id"), UUID.class);

  private final DSLContext dsl;
  private final Relayer relayer;
  private final TransactionTemplate transactions;
  private final AtomicLong shipped = new AtomicLong();

  Shipping(DSLContext dsl, Relayer relayer, TransactionTemplate transactions) {
    this.dsl = dsl;
    this.relayer = relayer;
    this.transactions = transactions;
  }

  @RabbitListener(queues = "${orders.queue}")
  public void onOrderPlaced(
      @Header(AmqpHeaders.MESSAGE_ID) UUID messageId,
      @Header(Orders.ORDER_ID_HEADER) long orderId) {
    InboxOutcome outcome =
        transactions.execute(
            status -> {
              InboxOutcome recorded = relayer.store().tryRecordInbox(dsl, CONSUMER, messageId);
              if (recorded == InboxOutcome.FIRST) {
                dsl.insertInto(SHIPMENTS, ORDER_ID, MESSAGE_ID)
                    .values(orderId, messageId)
                    .execute();
              }
              return recorded;
            });
    // Committed; the container acknowledges the delivery when this method returns.
    if (outcome == InboxOutcome.FIRST) {
      shipped.incrementAndGet();
      log.info(
          "message {} consumed: order {} shipped, id recorded in the inbox",
          id(messageId),
          orderId);
    } else {
      log.info("message {} dropped: a redelivery, its id is in the inbox already", id(messageId));
    }
  }

  /** Orders shipped since the service started. */
  long shipped() {
    return shipped.get();
  }

  /** The first 8 digits of a message id, as the log lines show it. */
  static String id(UUID messageId) {
    return messageId.toString().substring(0, 8);
  }
}
