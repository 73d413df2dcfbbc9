package dev.relayer.examples.orders;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.relayer.api.spi.MessageSerializer;
import dev.relayer.spring.boot.inbox.InboxGuarded;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.stereotype.Component;

/**
 * The consumer: ships each placed order once. Delivery is at least once (a crash after the broker
 * confirmed and before Relayer deleted the row sends the message again), so {@code @InboxGuarded}
 * records each message id in Relayer's inbox in one transaction with the shipment, and runs the
 * method only for a first delivery: a second delivery of the same id is acknowledged and ships
 * nothing. An exception rolls back (inbox record included) and the broker delivers the message
 * again.
 */
@Component
class Shipping {

  private static final Logger log = LoggerFactory.getLogger(Shipping.class);

  static final Table<Record> SHIPMENTS = table(name("shipments"));
  static final Field<Long> ORDER_ID = field(name("order_id"), Long.class);
  static final Field<UUID> MESSAGE_ID = field(name("message_id"), UUID.class);

  private final DSLContext dsl;
  private final MessageSerializer json;

  Shipping(DSLContext dsl, MessageSerializer json) {
    this.dsl = dsl;
    this.json = json;
  }

  @RabbitListener(queuesToDeclare = @Queue("orders"))
  @InboxGuarded("shipping") // the inbox record and this method's writes commit together
  public void ship(Message message, @Header(AmqpHeaders.MESSAGE_ID) UUID messageId) {
    OrderPlaced order = json.deserialize(message.getBody(), OrderPlaced.class);
    dsl.insertInto(SHIPMENTS, ORDER_ID, MESSAGE_ID).values(order.orderId(), messageId).execute();
    log.info("message {} consumed: order {} shipped", messageId, order.orderId());
  } // Spring acknowledges the delivery after this returns, so after the commit
}
