/**
 * The transport SPI. Implement {@link dev.relayer.api.spi.Transport} to deliver outbox messages to
 * a broker; register it with the dispatcher under its {@link dev.relayer.api.spi.Transport#name()}.
 *
 * <p>Contract, in short: one result per message in batch order; "accepted" means the broker has
 * taken responsibility; never block past the batch timeout; a transport that declares {@link
 * dev.relayer.api.spi.Transport#preservesBatchOrder()} keeps the batch's order and stops at the
 * first failure. Delivery is at least once: the same message id may be sent again after a crash, so
 * adapters pass the message id to the broker (AMQP message-id, a Kafka header, {@code Nats-Msg-Id})
 * for consumers and brokers to deduplicate on.
 *
 * <h2>Failures: for now or for good</h2>
 *
 * A message that was not accepted is either {@link dev.relayer.api.spi.SendResult#failed(String)
 * failed} — retried after a backoff, until the dispatcher's {@code maxAttempts} — or {@link
 * dev.relayer.api.spi.SendResult#rejected(String) rejected} for good: the broker or its client will
 * never take it as it is (a malformed or unroutable destination, a message too large or invalid for
 * the broker), and the dispatcher moves its row to the dead table at once with reason {@code
 * rejected} (an ordered head: parks its key). {@link dev.relayer.api.InvalidInputException} thrown
 * from {@code send} rejects the whole batch for good; any other exception fails it for now. Reject
 * only what cannot pass on its own: a broker that is down, a timeout or a full queue is a failure
 * to retry. A message the transport fails or rejects must not keep its neighbours from being sent,
 * unless the transport declares batch order and stops at the first failure (the rest then fail for
 * now, or are rejected too when the reason is their shared destination).
 *
 * <h2>Checks at enqueue</h2>
 *
 * {@link dev.relayer.api.spi.Transport#problems} names what a transport can never carry, for
 * example a destination its broker's naming rules forbid or a header its protocol cannot encode. A
 * dispatcher runs it for every message enqueued for that transport, before anything is written, and
 * refuses the message with {@code InvalidInputException} listing the problems. It must be fast,
 * free of I/O and must not throw; limits only the broker knows (sizes, routing) are left to {@code
 * send}.
 */
@NullMarked
package dev.relayer.api.spi;

import org.jspecify.annotations.NullMarked;
