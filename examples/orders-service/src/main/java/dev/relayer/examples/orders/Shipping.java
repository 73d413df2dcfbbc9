package dev.relayer.examples.orders;

import static dev.relayer.examples.orders.Orders.ORDER_ID_HEADER;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;
import dev.relayer.dispatch.Relayer;
import dev.relayer.store.InboxOutcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The consumer: ships each placed order once. Delivery is at least once (a crash after the broker
 * confirmed and before Relayer deleted the row sends the message again), so each delivery's message
 * id goes into Relayer's inbox in the same transaction as the shipment; a second delivery of the
 * same id finds it there and is dropped. The delivery is acknowledged after that transaction
 * commits: a crash before the ack redelivers, and the inbox drops the copy.
 *
 * <p>Declares the durable queue {@code orders.queue} when the bean is created, before the web
 * server takes the first order, so that no order's message finds no queue; consumes from it between
 * the context's start and stop.
 */
@Component
class Shipping implements InitializingBean, SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(Shipping.class);

  /** The consumer's name in the inbox: each consumer has its own record of what it processed. */
  static final String CONSUMER = "shipping";

  static final Table<Record> SHIPMENTS = table(name("shipments"));
  static final Field<Long> ORDER_ID = field(name("order_id"), Long.class);
  static final Field<UUID> MESSAGE_ID = field(name("message_id"), UUID.class);

  private final Connection connection;
  private final DSLContext dsl;
  private final Relayer relayer;
  private final TransactionTemplate transactions;
  private final String queue;
  private final AtomicLong shipped = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private Channel channel;

  Shipping(
      Connection connection,
      DSLContext dsl,
      Relayer relayer,
      TransactionTemplate transactions,
      @Value("${orders.queue}") String queue) {
    this.connection = connection;
    this.dsl = dsl;
    this.relayer = relayer;
    this.transactions = transactions;
    this.queue = queue;
  }

  /** What this consumer did since it started. */
  record Counts(long shipped, long duplicatesDropped) {}

  Counts counts() {
    return new Counts(shipped.get(), duplicates.get());
  }

  @Override
  public void afterPropertiesSet() throws IOException {
    try (Channel declaring = connection.createChannel()) {
      declaring.queueDeclare(queue, true, false, false, null);
    } catch (TimeoutException e) {
      throw new IOException("could not close the channel that declared queue " + queue, e);
    }
  }

  @Override
  public synchronized void start() {
    if (channel != null) {
      return;
    }
    try {
      Channel opened = connection.createChannel();
      opened.basicQos(50);
      opened.basicConsume(queue, false, (tag, delivery) -> handle(opened, delivery), tag -> {});
      channel = opened;
      log.info("Shipping consumes queue={}", queue);
    } catch (IOException e) {
      throw new UncheckedIOException("could not consume queue " + queue, e);
    }
  }

  private void handle(Channel on, Delivery delivery) throws IOException {
    long tag = delivery.getEnvelope().getDeliveryTag();
    AMQP.BasicProperties properties = delivery.getProperties();
    UUID messageId;
    long orderId;
    try {
      messageId = UUID.fromString(String.valueOf(properties.getMessageId()));
      Map<String, Object> headers = properties.getHeaders();
      orderId =
          Long.parseLong(String.valueOf(headers == null ? null : headers.get(ORDER_ID_HEADER)));
    } catch (IllegalArgumentException malformed) {
      // Not an OrderPlaced message of ours: redelivering it would fail the same way forever.
      log.error("Rejected a malformed message on queue={}: {}", queue, malformed.toString());
      on.basicReject(tag, false);
      return;
    }
    InboxOutcome outcome;
    try {
      outcome =
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
    } catch (RuntimeException e) {
      // Rolled back, inbox record included: the broker delivers it again.
      log.warn("Could not ship order={} id={}, requeued", orderId, messageId, e);
      on.basicNack(tag, false, true);
      return;
    }
    on.basicAck(tag, false); // after the commit: a crash before this redelivers, the inbox drops it
    if (outcome == InboxOutcome.FIRST) {
      shipped.incrementAndGet();
      log.info("Shipped order={} id={}", orderId, messageId);
    } else {
      duplicates.incrementAndGet();
      log.info("Dropped a duplicate of id={} order={}", messageId, orderId);
    }
  }

  @Override
  public synchronized void stop() {
    Channel open = channel;
    channel = null;
    if (open != null && open.isOpen()) {
      try {
        open.close();
      } catch (IOException | TimeoutException e) {
        log.warn("Shipping's channel did not close cleanly", e);
      }
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return channel != null;
  }
}
