package dev.relayer.api.spi;

import java.util.List;

/**
 * A broker adapter. Relayer calls {@link #send} from its worker threads, possibly from several at
 * once, so implementations must be thread-safe.
 *
 * <p>A transport reports one {@link SendResult} per message, in the order of the batch. A message
 * counts as delivered only when its result is {@link SendResult#accepted()}: the broker has taken
 * responsibility for it (a publisher confirm, an acknowledged produce, a JetStream publish ack).
 * Throwing from {@code send} fails every message of the batch; throwing {@link
 * dev.relayer.api.InvalidInputException} (for example for a destination the broker's naming rules
 * forbid) rejects every message of the batch for good, as {@link SendResult#rejected(String)} does
 * for one.
 *
 * <p>A transport that knows what its broker can never carry says so in {@link #problems}, which the
 * dispatcher runs when a message is enqueued, so that such a message is refused in the writer's
 * transaction instead of failing later.
 */
// close() throws Exception on purpose: a transport's flush may block and be interrupted, and the
// caller that closes it (the application) decides what an interrupted close means.
@SuppressWarnings("try")
public interface Transport extends AutoCloseable {

  /** The name rows refer to in their {@code transport} column; non-blank, unique per dispatcher. */
  String name();

  /** The most messages one {@link #send} call takes; at least 1. */
  int maxBatchSize();

  /**
   * Whether the broker keeps the batch's order and this transport stops at the first failure (every
   * message after a failed one is reported failed and was not sent). Only such transports may
   * receive several consecutive messages of one ordering key in one batch. Default {@code false}.
   */
  default boolean preservesBatchOrder() {
    return false;
  }

  /**
   * Sends the batch to its destination and reports, per message and in order, whether the broker
   * accepted it. Must return within {@link TransportBatch#timeout()}.
   *
   * @return exactly one result per message of the batch, in the same order
   * @throws Exception when the whole batch failed; every message counts as failed ({@link
   *     dev.relayer.api.InvalidInputException}: rejected for good)
   */
  List<SendResult> send(TransportBatch batch) throws Exception;

  /**
   * What makes {@code message} impossible to send to {@code destination} whatever the broker's
   * state: a destination its naming rules forbid, a field the protocol cannot carry. Each problem
   * is one sentence naming the field ({@code destination}, {@code messageType}, {@code header
   * 'name'}). Empty when the message can be sent as far as the transport can tell without asking
   * the broker.
   *
   * <p>A dispatcher runs this for every message enqueued for this transport's name, inside the
   * writing transaction and before anything is written; a non-empty answer makes the enqueue throw
   * {@link dev.relayer.api.InvalidInputException} with these problems. So it must be fast, must not
   * do I/O and must not throw. A transport should reject the same messages in {@link #send} (with
   * {@link SendResult#rejected(String)}), for rows written without the check. Default: no problems.
   */
  default List<String> problems(String destination, OutgoingMessage message) {
    return List.of();
  }

  /** Flushes what is in flight and releases connections. Default: nothing to release. */
  @Override
  default void close() throws Exception {}
}
