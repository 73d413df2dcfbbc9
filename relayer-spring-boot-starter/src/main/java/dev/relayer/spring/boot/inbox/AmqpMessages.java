package dev.relayer.spring.boot.inbox;

import dev.relayer.api.RelayerHeaders;
import dev.relayer.inbox.IncomingMessage;
import dev.relayer.inbox.rabbitmq.RabbitMqInbox;
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
    return RabbitMqInbox.read(
        properties.getMessageId(),
        properties.getType(),
        properties.getHeaders(),
        message.getBody());
  }
}
