package dev.relayer.examples.orders;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.relayer.dispatch.Relayer;
import dev.relayer.store.InboxOutcome;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * The consumer: ships each placed order once. Delivery is at least once (a crash after the broker
 * confirmed and before Relayer deleted the row sends the message again), so each message id goes
 * into Relayer's inbox in the same transaction as the shipment; a second delivery of the same id
 * finds it there and ships nothing. An exception rolls back (inbox record included) and the broker
 * delivers the message again.
 */
@Component
class Shipping {

  private static final Logger log = LoggerFactory.getLogger(Shipping.class);

  static final Table<Record> SHIPMENTS = table(name("shipments"));
  static final Field<Long> ORDER_ID = field(name("order_id"), Long.class);
  static final Field<UUID> MESSAGE_ID = field(name("message_id"), UUID.class);

  private final DSLContext dsl;
  private final Relayer relayer;

  Shipping(DSLContext dsl, Relayer relayer) {
    this.dsl = dsl;
    this.relayer = relayer;
  }

  @RabbitListener(queuesToDeclare = @Queue("orders"))
  @Transactional
  public void ship(
      @Header(AmqpHeaders.MESSAGE_ID) UUID messageId, @Header("order-id") long orderId) {
    if (relayer.store().tryRecordInbox(dsl, "shipping", messageId) == InboxOutcome.DUPLICATE) {
      log.info("message {} dropped: a redelivery, its id is in the inbox", messageId);
      return;
    }
    dsl.insertInto(SHIPMENTS, ORDER_ID, MESSAGE_ID).values(orderId, messageId).execute();
    log.info("message {} consumed: order {} shipped", messageId, orderId);
  } // Spring acknowledges the delivery after this returns, so after the commit
}
