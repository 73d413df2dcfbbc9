package dev.relayer.inbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DeliverCallback;
import com.rabbitmq.client.Delivery;
import dev.relayer.api.InvalidInputException;
import dev.relayer.api.RelayerHeaders;
import dev.relayer.inbox.InboxGuard;
import dev.relayer.inbox.InboxHandler;
import dev.relayer.inbox.InboxResult;
import dev.relayer.inbox.IncomingMessage;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link InboxGuard} for deliveries of the RabbitMQ Java client, consumed with manual acks
 * ({@code basicConsume(queue, false, ...)}): reads Relayer's fields from the AMQP properties (the
 * message id from {@code message-id}, the type from {@code type}, the tenant from the header {@code
 * relayer-tenant-id}), runs the guard, then settles the delivery after the commit.
 *
 * <pre>{@code
 * RabbitMqInbox billing = RabbitMqInbox.of(InboxGuard.create(relayer.store(), dsl, "billing"));
 * channel.basicQos(20);
 * channel.basicConsume("billing", false,
 *     billing.deliverCallback(channel, (tx, message) -> bill(tx, message)), tag -> {});
 * }</pre>
 *
 * <table>
 *   <caption>How each result settles the delivery</caption>
 *   <tr><th>result</th><th>delivery</th></tr>
 *   <tr><td>processed, duplicate</td><td>{@code basic.ack}, after the commit</td></tr>
 *   <tr><td>failed</td><td>{@code basic.nack} with requeue: RabbitMQ delivers it again</td></tr>
 *   <tr><td>unreadable (no Relayer message id)</td><td>{@code basic.reject} without requeue: to
 *       the queue's dead-letter exchange, if it has one</td></tr>
 * </table>
 *
 * A process that dies after the commit and before the ack leaves the delivery unacknowledged: when
 * its channel closes RabbitMQ delivers it again, and the guard drops that copy as a duplicate.
 */
public final class RabbitMqInbox {

  private static final Logger log = LoggerFactory.getLogger(RabbitMqInbox.class);

  private final InboxGuard guard;

  private RabbitMqInbox(InboxGuard guard) {
    this.guard = guard;
  }

  /** An adapter running {@code guard} for each delivery. */
  public static RabbitMqInbox of(InboxGuard guard) {
    return new RabbitMqInbox(Objects.requireNonNull(guard, "guard"));
  }

  /**
   * Relayer's fields of an AMQP message: {@code message-id}, {@code type}, the header {@value
   * RelayerHeaders#TENANT_ID}, every other header as text, and the body.
   *
   * @throws InvalidInputException when {@code message-id} is missing or not a UUID
   */
  public static IncomingMessage read(AMQP.BasicProperties properties, byte[] body) {
    return read(properties.getMessageId(), properties.getType(), properties.getHeaders(), body);
  }

  /**
   * {@link #read(AMQP.BasicProperties, byte[])} from the parts of an AMQP message, for a client
   * that wraps AMQP's properties in its own type (such as Spring AMQP's {@code MessageProperties}).
   *
   * @throws InvalidInputException when {@code messageId} is missing or not a UUID
   */
  public static IncomingMessage read(
      @Nullable String messageId,
      @Nullable String type,
      @Nullable Map<String, Object> headers,
      byte[] body) {
    UUID id = IncomingMessage.parseMessageId(messageId, "AMQP message-id");
    Map<String, String> text = new HashMap<>();
    String tenantId = null;
    if (headers != null) {
      for (Map.Entry<String, Object> header : headers.entrySet()) {
        if (header.getValue() == null) {
          continue;
        }
        String value = header.getValue().toString();
        if (header.getKey().equals(RelayerHeaders.TENANT_ID)) {
          tenantId = value;
        } else {
          text.put(header.getKey(), value);
        }
      }
    }
    return new IncomingMessage(id, type == null ? "" : type, tenantId, text, body);
  }

  /** {@link #read(AMQP.BasicProperties, byte[])} of a delivery. */
  public static IncomingMessage read(Delivery delivery) {
    return read(delivery.getProperties(), delivery.getBody());
  }

  /**
   * Guards one delivery and settles it on {@code channel} (the channel it arrived on) as the class
   * documentation says.
   *
   * @throws IOException when the ack, nack or reject cannot be sent (the channel closed): RabbitMQ
   *     then delivers the message again, and a processed one is dropped as a duplicate
   */
  public InboxResult handle(Channel channel, Delivery delivery, InboxHandler handler)
      throws IOException {
    long tag = delivery.getEnvelope().getDeliveryTag();
    IncomingMessage message;
    try {
      message = read(delivery);
    } catch (InvalidInputException e) {
      log.warn(
          "consumer={} delivery={} rejected without requeue: {}",
          guard.consumer(),
          tag,
          e.getMessage());
      channel.basicReject(tag, false);
      return new InboxResult.Unreadable(String.valueOf(e.getMessage()));
    }
    InboxResult result = guard.handle(message, handler);
    if (result.acknowledge()) {
      channel.basicAck(tag, false);
    } else {
      log.warn(
          "consumer={} id={} type={} handler failed, rolled back; given back for redelivery",
          guard.consumer(),
          message.messageId(),
          message.messageType(),
          cause(result));
      channel.basicNack(tag, false, true);
    }
    return result;
  }

  /** A callback for {@code channel.basicConsume(queue, false, callback, cancel)}. */
  public DeliverCallback deliverCallback(Channel channel, InboxHandler handler) {
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(handler, "handler");
    return (consumerTag, delivery) -> handle(channel, delivery, handler);
  }

  private static @Nullable Exception cause(InboxResult result) {
    return result instanceof InboxResult.Failed failed ? failed.cause() : null;
  }
}
