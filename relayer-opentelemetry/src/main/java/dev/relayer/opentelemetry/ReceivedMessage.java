package dev.relayer.opentelemetry;

import dev.relayer.api.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A message as a consumer received it from the broker, for {@link TracedInbox}.
 *
 * @param messagingSystem the {@code messaging.system} of the consumer span ({@code rabbitmq},
 *     {@code kafka}, {@code nats}); not blank
 * @param destination where it was received from (queue, topic, subject), the span's {@code
 *     messaging.destination.name}; not blank
 * @param messageId the Relayer message id the broker carried (AMQP message-id, the Kafka header
 *     {@code relayer-message-id}, {@code Nats-Msg-Id}); not the nil UUID
 * @param headers the received headers as strings, with {@code traceparent} and {@code tracestate}
 *     as the producer span wrote them; see the package documentation for each broker's form
 */
public record ReceivedMessage(
    String messagingSystem, String destination, UUID messageId, Map<String, String> headers) {

  public ReceivedMessage {
    List<String> problems = new ArrayList<>();
    if (messagingSystem == null || messagingSystem.isBlank()) {
      problems.add("messagingSystem must not be blank");
    }
    if (destination == null || destination.isBlank()) {
      problems.add("destination must not be blank");
    }
    if (messageId == null) {
      problems.add("messageId must not be null");
    } else if (messageId.getMostSignificantBits() == 0
        && messageId.getLeastSignificantBits() == 0) {
      problems.add("messageId must not be the nil UUID");
    }
    if (headers == null) {
      problems.add("headers must not be null");
    } else {
      headers.forEach(
          (name, value) -> {
            if (name == null || value == null) {
              problems.add("headers must not hold null names or values");
            }
          });
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
    headers = Map.copyOf(headers);
  }
}
