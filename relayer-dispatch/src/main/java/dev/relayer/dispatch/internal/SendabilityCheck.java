package dev.relayer.dispatch.internal;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.Transport;
import dev.relayer.store.EnqueueCheck;
import dev.relayer.store.NewMessage;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatcher's {@link EnqueueCheck}: asks the transport a message names whether it could ever
 * carry it ({@link Transport#problems}). A message for a transport this dispatcher does not know
 * passes: it may be meant for a transport registered in another process.
 */
public final class SendabilityCheck implements EnqueueCheck {

  private static final Logger log = LoggerFactory.getLogger(SendabilityCheck.class);

  private final Map<String, Transport> transports;

  public SendabilityCheck(Map<String, Transport> transports) {
    this.transports = Map.copyOf(transports);
  }

  @Override
  public List<String> problems(NewMessage message) {
    Transport transport = transports.get(message.transport());
    if (transport == null) {
      return List.of();
    }
    OutgoingMessage outgoing =
        new OutgoingMessage(
            message.messageId(),
            message.messageType(),
            message.headers(),
            message.body(),
            message.orderingKey(),
            message.tenantId());
    try {
      return List.copyOf(transport.problems(message.destination(), outgoing));
    } catch (RuntimeException e) {
      // The SPI forbids it; a broken check must not break the application's writes.
      log.warn(
          "transport={} problems() threw; the message is enqueued unchecked", transport.name(), e);
      return List.of();
    }
  }
}
