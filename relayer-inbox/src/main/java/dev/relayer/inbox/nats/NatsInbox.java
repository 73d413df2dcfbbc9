package dev.relayer.inbox.nats;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.RelayerHeaders;
import dev.relayer.inbox.InboxGuard;
import dev.relayer.inbox.InboxHandler;
import dev.relayer.inbox.InboxResult;
import dev.relayer.inbox.IncomingMessage;
import io.nats.client.Message;
import io.nats.client.MessageHandler;
import io.nats.client.impl.Headers;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link InboxGuard} for JetStream messages of a consumer with explicit acks (the default of a
 * durable pull or push consumer): reads Relayer's fields from the headers ({@value #MESSAGE_ID},
 * the type from {@value RelayerHeaders#MESSAGE_TYPE}, the tenant from {@value
 * RelayerHeaders#TENANT_ID}), runs the guard, then settles the message after the commit.
 *
 * <pre>{@code
 * NatsInbox billing = NatsInbox.of(InboxGuard.create(relayer.store(), dsl, "billing"));
 * JetStreamSubscription subscription = jetStream.subscribe("orders.>", dispatcher,
 *     billing.messageHandler((tx, message) -> bill(tx, message)), false,
 *     PushSubscribeOptions.builder().durable("billing").build());
 * // or, pulling: for (Message m : subscription.fetch(20, Duration.ofSeconds(1))) billing.handle(m, handler);
 * }</pre>
 *
 * <table>
 *   <caption>How each result settles the message</caption>
 *   <tr><th>result</th><th>message</th></tr>
 *   <tr><td>processed, duplicate</td><td>{@code ack}, after the commit</td></tr>
 *   <tr><td>failed</td><td>{@code nak}: JetStream delivers it again (up to the consumer's {@code
 *       max_deliver})</td></tr>
 *   <tr><td>unreadable (no Relayer message id)</td><td>{@code term}: never delivered again</td></tr>
 * </table>
 *
 * A process that dies after the commit and before the ack leaves the message unacknowledged:
 * JetStream delivers it again after the consumer's {@code ack_wait} (30 s by default), and the
 * guard drops that copy as a duplicate.
 */
public final class NatsInbox {

  /** The header that carries the Relayer message id: JetStream's own {@value}. */
  public static final String MESSAGE_ID = "Nats-Msg-Id";

  private static final Logger log = LoggerFactory.getLogger(NatsInbox.class);

  private final InboxGuard guard;

  private NatsInbox(InboxGuard guard) {
    this.guard = guard;
  }

  /** An adapter running {@code guard} for each message. */
  public static NatsInbox of(InboxGuard guard) {
    return new NatsInbox(Objects.requireNonNull(guard, "guard"));
  }

  /**
   * Relayer's fields of a NATS message: {@value #MESSAGE_ID}, {@value RelayerHeaders#MESSAGE_TYPE},
   * {@value RelayerHeaders#TENANT_ID}, every other header (its first value), and the body.
   *
   * @throws InvalidInputException when {@value #MESSAGE_ID} is missing or not a UUID
   */
  public static IncomingMessage read(Message message) {
    Headers raw = message.getHeaders();
    UUID id =
        IncomingMessage.parseMessageId(
            raw == null ? null : raw.getFirst(MESSAGE_ID), "NATS header " + MESSAGE_ID);
    Map<String, String> headers = new HashMap<>();
    String type = "";
    String tenantId = null;
    for (String key : raw == null ? Set.<String>of() : raw.keySet()) {
      List<String> values = raw.get(key);
      if (values == null || values.isEmpty()) {
        continue;
      }
      String value = values.get(0);
      if (key.equals(RelayerHeaders.MESSAGE_TYPE)) {
        type = value;
      } else if (key.equals(RelayerHeaders.TENANT_ID)) {
        tenantId = value;
      } else if (!key.equals(MESSAGE_ID)) {
        headers.put(key, value);
      }
    }
    byte[] data = message.getData();
    return new IncomingMessage(id, type, tenantId, headers, data == null ? new byte[0] : data);
  }

  /** Guards one message and settles it as the class documentation says. */
  public InboxResult handle(Message message, InboxHandler handler) {
    IncomingMessage incoming;
    try {
      incoming = read(message);
    } catch (InvalidInputException e) {
      log.warn(
          "consumer={} subject={} terminated: {}",
          guard.consumer(),
          message.getSubject(),
          e.getMessage());
      message.term();
      return new InboxResult.Unreadable(String.valueOf(e.getMessage()));
    }
    InboxResult result = guard.handle(incoming, handler);
    if (result.acknowledge()) {
      message.ack();
    } else {
      log.warn(
          "consumer={} id={} type={} handler failed, rolled back; given back for redelivery",
          guard.consumer(),
          incoming.messageId(),
          incoming.messageType(),
          cause(result));
      message.nak();
    }
    return result;
  }

  /** A handler for a push subscription with explicit acks ({@code autoAck = false}). */
  public MessageHandler messageHandler(InboxHandler handler) {
    Objects.requireNonNull(handler, "handler");
    return message -> handle(message, handler);
  }

  private static @Nullable Exception cause(InboxResult result) {
    return result instanceof InboxResult.Failed failed ? failed.cause() : null;
  }
}
