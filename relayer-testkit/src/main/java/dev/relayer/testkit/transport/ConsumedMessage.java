package dev.relayer.testkit.transport;

import java.util.Map;
import java.util.Objects;

/**
 * A message as a real consumer of the broker received it, in the broker's own terms mapped back to
 * Relayer's fields.
 *
 * @param messageId the id the broker carried (AMQP message-id, a Kafka header, {@code Nats-Msg-Id})
 * @param messageType the type the broker carried
 * @param headers every header the consumer saw; may hold broker or transport headers beyond the
 *     ones Relayer sent
 * @param body the payload
 */
// The payload as the consumer got it; tests compare it with what they sent.
@SuppressWarnings("ArrayRecordComponent")
public record ConsumedMessage(
    String messageId, String messageType, Map<String, String> headers, byte[] body) {

  public ConsumedMessage {
    headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
    Objects.requireNonNull(body, "body");
  }
}
