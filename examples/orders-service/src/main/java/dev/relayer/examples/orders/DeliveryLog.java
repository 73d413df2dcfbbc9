package dev.relayer.examples.orders;

import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.spi.DeadReason;
import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.EnqueueListener;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.jooq.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A demo's view of each message on its way: one line when its outbox row commits with the order,
 * one when Relayer has sent it (the broker confirmed it and the row is deleted); {@link Shipping}
 * writes the line for its consumption. The consumer may have the message before the broker's
 * confirm reaches Relayer, so its line can come before the send's. A real service watches Relayer's
 * metrics and health instead; remove this class with the other demo classes.
 */
@Component
class DeliveryLog implements EnqueueListener, RelayerEventListener {

  private static final Logger log = LoggerFactory.getLogger(DeliveryLog.class);

  DeliveryLog(Relayer relayer) {
    relayer.store().attach(this);
    relayer.addEventListener(this);
  }

  /**
   * Called inside the order's transaction: logs after its commit, before the starter hands the row
   * to Relayer (another after-commit step, ordered last), so that this line comes first.
   */
  @Override
  public void enqueued(Configuration transaction, List<Long> unorderedIds, Set<Integer> lanes) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      return;
    }
    List<Long> ids = List.copyOf(unorderedIds);
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
          }

          @Override
          public void afterCommit() {
            ids.forEach(id -> log.info("outbox row {} committed with its order", id));
          }
        });
  }

  @Override
  public void sent(DeliveryEvent event) {
    log.info(
        "outbox row {} sent: message {}, confirmed by the broker", event.id(), event.messageId());
  }

  @Override
  public void failed(DeliveryEvent event, String error, Instant retryAt) {
    log.warn("outbox row {} not sent, retried at {}: {}", event.id(), retryAt, error);
  }

  @Override
  public void dead(DeliveryEvent event, DeadReason reason, String error) {
    log.error("outbox row {} dead ({}): {}", event.id(), reason.tag(), error);
  }
}
