package dev.relayer.store;

import java.time.Duration;

/**
 * Hooks for metrics on the store's writes, called on the caller's thread inside the caller's
 * transaction, after the statement succeeded and before the transaction commits (a rollback later
 * does not take the event back). Implementations must be fast, thread-safe and must not throw (an
 * exception thrown here reaches the caller). Every method defaults to doing nothing. While no
 * listener is registered the store reads no clock for them.
 */
public non-sealed interface StoreEventListener extends StoreHook {

  /**
   * An {@link RelayerStore#enqueue} call wrote {@code messages} rows (at least 1) in {@code
   * duration}: from the call until its inserts returned, by the monotonic clock, including the
   * {@link EnqueueCheck}s and the {@link EnqueueListener}s. A call that throws is not reported.
   */
  default void enqueued(int messages, Duration duration) {}

  /**
   * {@link RelayerStore#tryRecordInbox} answered {@code outcome} for {@code consumer}; {@link
   * InboxOutcome#DUPLICATE} means the consumer drops the message.
   */
  default void inboxRecorded(String consumer, InboxOutcome outcome) {}
}
