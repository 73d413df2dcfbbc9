package dev.relayer.api.spi;

import java.util.List;

/**
 * A broker adapter. Relayer calls {@link #send} from its worker threads, possibly from several at
 * once, so implementations must be thread-safe.
 *
 * <p>A transport reports one {@link SendResult} per message, in the order of the batch. A message
 * counts as delivered only when its result is {@link SendResult#accepted()}: the broker has taken
 * responsibility for it (a publisher confirm, an acknowledged produce, a JetStream publish ack).
 * Throwing from {@code send} fails every message of the batch.
 */
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
   * @throws Exception when the whole batch failed; every message counts as failed
   */
  List<SendResult> send(TransportBatch batch) throws Exception;

  /** Flushes what is in flight and releases connections. Default: nothing to release. */
  @Override
  default void close() throws Exception {}
}
