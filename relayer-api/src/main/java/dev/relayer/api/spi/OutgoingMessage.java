package dev.relayer.api.spi;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One message as a transport sends it.
 *
 * @param messageId the message's identity; the same on every send and replay, never the nil UUID
 * @param messageType stable type name chosen by the application (not a Java class name)
 * @param headers string headers, including the creation context such as {@code traceparent}
 * @param body opaque payload; transports must not modify it
 * @param orderingKey the ordering key, or {@code null} for an unordered message
 * @param tenantId the tenant, or {@code null}
 */
// The body is handed to the broker client as it is: a copy per access would cost on every send.
@SuppressWarnings("ArrayRecordComponent")
public record OutgoingMessage(
    UUID messageId,
    String messageType,
    Map<String, String> headers,
    byte[] body,
    @Nullable String orderingKey,
    @Nullable String tenantId) {

  public OutgoingMessage {
    Objects.requireNonNull(messageId, "messageId");
    Objects.requireNonNull(messageType, "messageType");
    headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
    Objects.requireNonNull(body, "body");
  }
}
