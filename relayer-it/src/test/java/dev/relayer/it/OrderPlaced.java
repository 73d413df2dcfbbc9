package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.relayer.store.NewMessage;
import java.util.UUID;

/**
 * The message the end-to-end tests send: an order placed, with the headers a real application sets.
 * Header values are ASCII (NATS carries nothing else); the body is opaque JSON with a non-ASCII
 * character, which every broker must carry byte for byte.
 */
final class OrderPlaced {

  static final String TYPE = "OrderPlaced";
  static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  private OrderPlaced() {}

  static NewMessage message(String transport, String destination, UUID messageId, int orderId) {
    return message(transport, destination, messageId, orderId, null);
  }

  /** The same, for {@code tenantId} (none when {@code null}). */
  static NewMessage message(
      String transport, String destination, UUID messageId, int orderId, String tenantId) {
    NewMessage.Builder builder = NewMessage.builder();
    if (tenantId != null) {
      builder.tenantId(tenantId);
    }
    return builder
        .messageId(messageId)
        .transport(transport)
        .destination(destination)
        .messageType(TYPE)
        .header("traceparent", TRACEPARENT)
        .header("content-type", "application/json")
        .body(("{\"orderId\":" + orderId + ",\"city\":\"Zürich\"}").getBytes(UTF_8))
        .build();
  }
}
