package dev.relayer.spring.boot.inbox;

import dev.relayer.api.RelayerHeaders;
import dev.relayer.inbox.IncomingMessage;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;

/** Relayer's fields of a Spring AMQP {@link Message}, as {@code RabbitMqInbox.read} reads them. */
public final class AmqpMessages {

  private AmqpMessages() {}

  /**
   * The message id from {@code message-id}, the type from {@code type}, the tenant from the header
   * {@value RelayerHeaders#TENANT_ID}, every other header as text, and the body.
   *
   * @throws dev.relayer.api.InvalidInputException when {@code message-id} is missing or not a UUID
   */
  public static IncomingMessage read(Message message) {
    MessageProperties properties = message.getMessageProperties();
    UUID id = IncomingMessage.parseMessageId(properties.getMessageId(), "AMQP message-id");
    Map<String, String> headers = new HashMap<>();
    String tenantId = null;
    for (Map.Entry<String, Object> header : properties.getHeaders().entrySet()) {
      if (header.getValue() == null) {
        continue;
      }
      String value = header.getValue().toString();
      if (header.getKey().equals(RelayerHeaders.TENANT_ID)) {
        tenantId = value;
      } else {
        headers.put(header.getKey(), value);
      }
    }
    String type = properties.getType();
    return new IncomingMessage(id, type == null ? "" : type, tenantId, headers, message.getBody());
  }
}
