/**
 * Inbox-guarded consumers: {@link dev.relayer.inbox.InboxGuard} records each delivery's Relayer
 * message id in the inbox, in the consumer's own jOOQ transaction, runs the consumer's handler only
 * for a first delivery, and tells the caller to acknowledge after the commit. Adapters for each
 * broker's Java client read Relayer's headers from the native message and settle it in that
 * broker's idiom: {@link dev.relayer.inbox.rabbitmq.RabbitMqInbox} (amqp-client), {@link
 * dev.relayer.inbox.kafka.KafkaInbox} (kafka-clients), {@link dev.relayer.inbox.nats.NatsInbox}
 * (jnats). Each needs only its own client on the class path.
 *
 * <p>The protocol, per delivery:
 *
 * <ol>
 *   <li>read the message id (and type, tenant, headers, body) from the broker's message; a delivery
 *       without a Relayer message id cannot be guarded and is refused without redelivery;
 *   <li>open a transaction on the application's {@code DSLContext}; insert {@code (consumer,
 *       message id)} into the inbox ({@code INSERT … ON CONFLICT DO NOTHING}, never a select
 *       first);
 *   <li>a new row: run the handler with the transaction's {@code DSLContext} and commit; the row
 *       was there: commit nothing and skip the handler;
 *   <li>acknowledge after the commit; after a failure (the handler threw, the commit failed), the
 *       row and the work are rolled back and the delivery goes back to the broker.
 * </ol>
 *
 * A crash anywhere before the commit leaves neither the row nor the work, and the broker delivers
 * again; a crash between the commit and the acknowledgement leaves the row, and the redelivered
 * copy is dropped. Deduplication lasts as long as the inbox row ({@code inboxRetention}).
 */
@NullMarked
package dev.relayer.inbox;

import org.jspecify.annotations.NullMarked;
