package dev.relayer.api;

/**
 * The header names Relayer's transports write next to a message's own headers, and that a consumer
 * reads back (for example with {@code relayer-inbox}). Where a broker has a field of its own for a
 * value, the transport uses that field instead: RabbitMQ carries the message id and type in the
 * AMQP properties {@code message-id} and {@code type}, NATS carries the message id in {@code
 * Nats-Msg-Id}.
 *
 * <table>
 *   <caption>Where each value travels</caption>
 *   <tr><th>value</th><th>RabbitMQ</th><th>Kafka</th><th>NATS JetStream</th></tr>
 *   <tr><td>message id</td><td>property {@code message-id}</td><td>{@value #MESSAGE_ID}</td>
 *       <td>{@code Nats-Msg-Id}</td></tr>
 *   <tr><td>message type</td><td>property {@code type}</td><td>{@value #MESSAGE_TYPE}</td>
 *       <td>{@value #MESSAGE_TYPE}</td></tr>
 *   <tr><td>tenant</td><td>header {@value #TENANT_ID}</td><td>{@value #TENANT_ID}</td>
 *       <td>{@value #TENANT_ID}</td></tr>
 * </table>
 *
 * <p>The tenant header is written only for a message with a tenant; a message without one carries
 * no such header. A message header of the application with one of these names is replaced by
 * Relayer's value (or, for the tenant of a message without one, left out).
 */
public final class RelayerHeaders {

  /** The message id as UUID text, where the broker has no field of its own for it: {@value}. */
  public static final String MESSAGE_ID = "relayer-message-id";

  /** The message type, where the broker has no field of its own for it: {@value}. */
  public static final String MESSAGE_TYPE = "relayer-message-type";

  /** The message's tenant, on every broker; absent when the message has none: {@value}. */
  public static final String TENANT_ID = "relayer-tenant-id";

  private RelayerHeaders() {}
}
