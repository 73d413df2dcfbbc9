package dev.relayer.inbox;

import dev.relayer.api.RelayerException;

/**
 * A checked exception of an {@link InboxHandler}, rethrown by {@link InboxGuard#handleOrThrow}
 * after the rollback; the handler's exception is the cause.
 */
public final class InboxHandlerException extends RelayerException {

  private static final long serialVersionUID = 1L;

  InboxHandlerException(String consumer, IncomingMessage message, Exception cause) {
    super(
        "consumer="
            + consumer
            + " id="
            + message.messageId()
            + " type="
            + message.messageType()
            + ": the handler failed and was rolled back",
        cause);
  }
}
