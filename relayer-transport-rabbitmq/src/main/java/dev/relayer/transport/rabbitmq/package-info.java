/**
 * RabbitMQ transport: {@link dev.relayer.transport.rabbitmq.RabbitMqTransport}.
 *
 * <h2>Destinations</h2>
 *
 * A row's destination is {@code exchange/routingKey}, split at the first {@code /}:
 *
 * <ul>
 *   <li>{@code orders/order.created} publishes to exchange {@code orders} with routing key {@code
 *       order.created};
 *   <li>{@code /billing} publishes through the default exchange, so straight to the queue {@code
 *       billing};
 *   <li>{@code audit} (no {@code /}) publishes to exchange {@code audit} with an empty routing key,
 *       as fanout exchanges expect.
 * </ul>
 *
 * Routing keys may contain {@code /}; exchange names may not. A blank destination, a bare {@code
 * /}, or a name over 255 bytes rejects the whole batch for good with {@link
 * dev.relayer.api.InvalidInputException}.
 *
 * <p>AMQP carries the message type and header names as short strings of at most 255 bytes of UTF-8.
 * A message with a longer one is checked before publishing and rejected for good on its own, with
 * an error naming the field (and which header); it is not published, and the rest of the batch is
 * (an ordered batch stops there). {@link dev.relayer.transport.rabbitmq.RabbitMqTransport#problems}
 * reports the same, and the destination problems, so that a dispatcher refuses such messages at
 * enqueue.
 *
 * <h2>What a batch does</h2>
 *
 * Each batch opens its own channel, turns on publisher confirms, and publishes every message in
 * batch order with {@code mandatory} set, as a persistent message whose AMQP {@code message-id} is
 * the Relayer message id, whose {@code type} is the message type and whose headers are the
 * message's headers (string values) plus, for a message with a tenant, {@code relayer-tenant-id}.
 * It then waits, at most until the batch timeout, for the broker to settle each message:
 *
 * <ul>
 *   <li>{@code basic.ack} without a return: accepted (the broker routed it to at least one queue
 *       and took responsibility for it; persisted if the queue is durable);
 *   <li>{@code basic.return} (nothing bound for it): rejected for good as unroutable;
 *   <li>channel closed with {@code 404} (the exchange does not exist): rejected for good, and so is
 *       the rest of an ordered batch, which shares the destination;
 *   <li>{@code basic.nack} (for example a full queue with {@code x-overflow=reject-publish}):
 *       failed, to be retried;
 *   <li>channel closed for another reason, connection lost, or no confirm before the timeout:
 *       failed, to be retried. Such a message may still reach the queue, so it can be delivered
 *       twice — delivery is at least once, and consumers deduplicate on {@code message-id}.
 * </ul>
 *
 * One channel per batch keeps the batch's order on its way to a queue. {@link
 * dev.relayer.transport.rabbitmq.RabbitMqTransport#preservesBatchOrder()} is still {@code false} by
 * default: publishing is pipelined, so a message after a refused one may already be queued when the
 * refusal arrives, and the transport cannot stop at the first failure. Built with {@code
 * orderedBatches(true)}, the transport publishes one message at a time, waits for its confirm,
 * stops at the first failure (the rest are reported failed and not sent) and declares batch order.
 *
 * <h2>When the broker is down</h2>
 *
 * The transport connects on its first batch, bounded by {@code connectTimeout} and the batch
 * timeout; a refused or timed-out connection fails the batch with an exception naming the broker's
 * host and port. Once connected, the client's automatic recovery reconnects every {@code
 * recoveryInterval}; while the connection is down, batches fail at once with an exception saying
 * so, and succeed again after recovery without rebuilding the transport. A broker that stops
 * answering without closing the connection makes the batch fail at its timeout; the channel is then
 * closed off the caller's thread.
 *
 * <p>Built with several {@code addresses} (the nodes of a cluster), the transport tries them in the
 * order given, each bounded by {@code connectTimeout}, and keeps the first that completes the AMQP
 * handshake; a failure to connect names them all. Automatic recovery tries the list again in the
 * same order, so a lost node's clients move to the next one that answers.
 */
@NullMarked
package dev.relayer.transport.rabbitmq;

import org.jspecify.annotations.NullMarked;
