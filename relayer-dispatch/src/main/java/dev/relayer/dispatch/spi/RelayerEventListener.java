package dev.relayer.dispatch.spi;

import java.time.Duration;
import java.time.Instant;

/**
 * Hooks for metrics, tracing and tests. Called from Relayer's threads; implementations must be fast
 * and thread-safe. An exception thrown here is logged and ignored. Every method defaults to doing
 * nothing.
 *
 * <p>The outcome events ({@link #sent}, {@link #sendFailed}, {@link #failed}, {@link #dead}, {@link
 * #parked}) are called after the transaction that wrote the outcome committed. {@link #batchSent}
 * reports a transport call as it returns, before its outcome is written; {@link #passFinished} and
 * {@link #cleanedUp} come at the end of a pass.
 *
 * <p>With no listener registered, Relayer builds no event and reads no clock for them.
 */
public interface RelayerEventListener {

  /** The broker accepted the message and its row was deleted. */
  default void sent(DeliveryEvent event) {}

  /**
   * A send of the row failed, whatever comes of it: called once per failed row and attempt, before
   * the {@link #failed}, {@link #dead} or {@link #parked} of the same row and attempt (a row whose
   * outcome was lost to a newer claim gets none of those). Rows that are buried because they used
   * up their attempts without a send are not reported here.
   *
   * @param kind how the failure is classified
   * @param error the transport's error, as stored in {@code last_error}
   */
  default void sendFailed(DeliveryEvent event, FailureKind kind, String error) {}

  /** The send failed; the row will be retried at {@code retryAt}. */
  default void failed(DeliveryEvent event, String error, Instant retryAt) {}

  /**
   * The row moved to the dead table.
   *
   * @param reason why; {@link DeadReason#tag()} is what its {@code reason} column holds
   * @param error the last error, as stored with the dead row
   */
  default void dead(DeliveryEvent event, DeadReason reason, String error) {}

  /** An ordered key's head was parked for an operator. */
  default void parked(DeliveryEvent event, String error) {}

  /** {@code owner} took or renewed the lease {@code lease}. */
  default void leaseAcquired(String lease, String owner) {}

  /** {@code owner} lost or released the lease {@code lease}. */
  default void leaseLost(String lease, String owner) {}

  /**
   * Ids handed over after commit were dropped because the queue was full (the sweeper has them).
   */
  default void handoffDropped(int ids) {}

  /**
   * One transport call returned (or timed out), on the thread that waited for it, before the
   * outcome is written. Direct dispatch, the sweeper and lanes all send through it.
   */
  default void batchSent(SendBatch batch) {}

  /**
   * A pass ended normally; {@code duration} by the monotonic clock, from its first statement to its
   * last event. A pass that threw is not reported.
   */
  default void passFinished(PassKind kind, Duration duration) {}

  /**
   * A cleanup run deleted {@code rows} (at least 1) from one table: {@code outbox_dead} (dead rows
   * past their retention) or {@code inbox} (inbox records past theirs), by the table's base name
   * without the prefix.
   */
  default void cleanedUp(String table, long rows) {}
}
