/**
 * NATS JetStream transport: {@link dev.relayer.transport.nats.NatsTransport}.
 *
 * <h2>Destinations</h2>
 *
 * A row's destination is the subject to publish on, for example {@code orders.created}; a JetStream
 * stream must capture that subject. Wildcards, whitespace and empty tokens are not subjects one can
 * publish on, nor is a subject too long for the client's control line ({@code maxControlLine} less
 * 128 bytes for the verb, the reply inbox and the sizes): they reject the whole batch for good with
 * {@link dev.relayer.api.InvalidInputException}.
 *
 * <h2>What a batch does</h2>
 *
 * Every message of the batch is published to JetStream without waiting in between, with the header
 * {@code Nats-Msg-Id} set to the Relayer message id, {@code relayer-message-type} set to the
 * message type, {@code relayer-tenant-id} set to the tenant (only for a message with one), and the
 * message's own headers. NATS header names are printable US-ASCII without {@code :}, values are
 * US-ASCII without CR or LF, and the message type and tenant travel as values: a message that
 * breaks these rules, or whose body and headers exceed the server's {@code max_payload}, is checked
 * before publishing and rejected for good on its own, with an error naming the header, the
 * character and its index. Relayer refuses non-ASCII header text rather than encode it, since a
 * consumer would have to know the encoding. {@link
 * dev.relayer.transport.nats.NatsTransport#problems} reports the subject and header problems, so
 * that a dispatcher refuses such messages at enqueue. Then the transport waits, at most until the
 * batch timeout, for each publish acknowledgement:
 *
 * <ul>
 *   <li>an acknowledgement: accepted — the stream stored the message. A replay of a message id the
 *       stream has seen within its duplicate window is acknowledged as a duplicate and not stored
 *       again, so a resend after a crash is dropped by the server;
 *   <li>an error from the stream: rejected for good for a message over the stream's maximum size
 *       (JetStream error 10054) or headers over the maximum (10097), failed with the stream's
 *       reason otherwise (for example a full stream that discards new messages);
 *   <li>no responders: failed, to be retried. Nothing answered for the subject: no stream captures
 *       it, or the server holding the stream is restarting, or the stream is imported from another
 *       account; a publish cannot tell which, so the row is retried until the dispatcher's {@code
 *       maxAttempts};
 *   <li>no acknowledgement before the timeout — the batch's, or the client's own request timeout,
 *       as when the network stalls with the connection still open: failed, with an error that
 *       starts {@code timed out:} (never "refused": nothing refused it). The message may still have
 *       been stored; a resend within the duplicate window is dropped, and consumers deduplicate on
 *       {@code Nats-Msg-Id} beyond it.
 * </ul>
 *
 * Accepted messages of a batch are stored in batch order. {@link
 * dev.relayer.transport.nats.NatsTransport#preservesBatchOrder()} is still {@code false} by
 * default: the publishes are pipelined, so a message after a refused one may already be stored when
 * the refusal arrives. Built with {@code orderedBatches(true)}, the transport publishes one message
 * at a time, waits for its acknowledgement, stops at the first failure (the rest are reported
 * failed and not sent) and declares batch order.
 *
 * <h2>When the server is down</h2>
 *
 * The transport connects on its first batch, bounded by {@code connectTimeout} and the batch
 * timeout; a refused connection fails the batch at once with an exception naming the server. Once
 * connected, the client reconnects on its own (forever, every {@code reconnectWait}, when built
 * from a URL); while it is disconnected, batches fail at once with an exception saying so rather
 * than filling the client's reconnect buffer, and succeed again after the reconnect without
 * rebuilding the transport.
 */
@NullMarked
package dev.relayer.transport.nats;

import org.jspecify.annotations.NullMarked;
