package dev.relayer.inbox;

import org.jooq.DSLContext;

/**
 * The consumer's work for one message, run by {@link InboxGuard} only for a first delivery, inside
 * the transaction that records the message id.
 */
@FunctionalInterface
public interface InboxHandler {

  /**
   * Does the work for {@code message}. Write through {@code tx}: it is bound to the transaction
   * that records the message id, so the work and the record commit or roll back together. Throwing
   * rolls both back, and the delivery is not acknowledged, so the broker delivers it again.
   *
   * @param tx the transaction's {@code DSLContext}
   * @param message the delivery as Relayer's fields
   */
  void handle(DSLContext tx, IncomingMessage message) throws Exception;
}
