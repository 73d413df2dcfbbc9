package dev.relayer.inbox;

import dev.relayer.api.InvalidInputException;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A delivery as Relayer's fields, read from the broker's own message by an adapter ({@link
 * dev.relayer.inbox.rabbitmq.RabbitMqInbox#read}, {@link dev.relayer.inbox.kafka.KafkaInbox#read},
 * {@link dev.relayer.inbox.nats.NatsInbox#read}).
 *
 * @param messageId the Relayer message id: the inbox key
 * @param messageType the message type the producer gave
 * @param tenantId the message's tenant ({@code relayer-tenant-id}), or {@code null} when it has
 *     none
 * @param headers the delivery's other headers as text (Relayer's own are not repeated here)
 * @param body the payload as the broker delivered it
 */
// The payload as the broker delivered it: a copy per access would cost on every message.
@SuppressWarnings("ArrayRecordComponent")
public record IncomingMessage(
    UUID messageId,
    String messageType,
    @Nullable String tenantId,
    Map<String, String> headers,
    byte[] body) {

  /** The nil UUID, never a Relayer message id. */
  private static final UUID NIL = new UUID(0, 0);

  public IncomingMessage {
    Objects.requireNonNull(messageId, "messageId");
    if (NIL.equals(messageId)) {
      throw new InvalidInputException("messageId must not be the nil UUID");
    }
    Objects.requireNonNull(messageType, "messageType");
    headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
    Objects.requireNonNull(body, "body");
  }

  /**
   * The message id from its text as a broker carried it.
   *
   * @param where where the id was read, for the error (for example {@code "AMQP message-id"})
   * @throws InvalidInputException when the text is missing or not a UUID: the delivery was not
   *     published by Relayer (or its id was changed on the way), so the inbox cannot guard it
   */
  public static UUID parseMessageId(@Nullable String text, String where) {
    if (text == null || text.isBlank()) {
      throw new InvalidInputException(
          "the delivery has no " + where + ": not a Relayer message, the inbox cannot guard it");
    }
    try {
      return UUID.fromString(text.trim());
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(
          where + " '" + abbreviate(text) + "' is not a UUID: not a Relayer message id");
    }
  }

  private static String abbreviate(String text) {
    return text.length() <= 60 ? text : text.substring(0, 60) + "…";
  }
}
