package dev.relayer.examples.orders;

import static dev.relayer.examples.orders.Shipping.id;

import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * One line per message as it is committed and as Relayer sends it ({@link Shipping} writes the line
 * for its consumption), so that the way of each message shows in the terminal. Relayer reports a
 * send once the broker's confirm has reached it and the outbox row is deleted: the consumer may
 * have the message by then, so its line can come first. A demo's view: a real service watches
 * Relayer's metrics and health instead (see application.properties). Registered with Relayer in
 * {@link OrdersApplication}.
 */
@Component
class DeliveryLog implements RelayerEventListener {

  private static final Logger log = LoggerFactory.getLogger(DeliveryLog.class);

  /**
   * After the order's transaction committed, and before the starter hands its message to Relayer
   * (another after-commit step, ordered last), so that this line comes first.
   */
  @TransactionalEventListener
  @Order(Ordered.HIGHEST_PRECEDENCE)
  void committed(Orders.Placed placed) {
    log.info(
        "message {} committed: order {} and its message, in one transaction",
        id(placed.messageId()),
        placed.orderId());
  }

  @Override
  public void sent(DeliveryEvent event) {
    log.info(
        "message {} sent: {} {}, the broker confirmed it ({} dispatch, attempt {})",
        id(event.messageId()),
        event.transport(),
        event.destination(),
        event.component(),
        event.attempts());
  }

  @Override
  public void failed(DeliveryEvent event, String error, Instant retryAt) {
    log.warn("message {} not sent, retried at {}: {}", id(event.messageId()), retryAt, error);
  }

  @Override
  public void dead(DeliveryEvent event, String reason, String error) {
    log.error("message {} dead ({}): {}", id(event.messageId()), reason, error);
  }
}
