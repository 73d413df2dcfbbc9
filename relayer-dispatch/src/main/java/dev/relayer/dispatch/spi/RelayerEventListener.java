package dev.relayer.dispatch.spi;

import java.time.Instant;

/**
 * Hooks for metrics, tracing and tests. Called from Relayer's threads after the outcome is
 * committed; implementations must be fast and thread-safe. An exception thrown here is logged and
 * ignored. Every method defaults to doing nothing.
 */
public interface RelayerEventListener {

  /** The broker accepted the message and its row was deleted. */
  default void sent(DeliveryEvent event) {}

  /** The send failed; the row will be retried at {@code retryAt}. */
  default void failed(DeliveryEvent event, String error, Instant retryAt) {}

  /** The row moved to the dead table ({@code reason}: max-attempts, unknown-transport...). */
  default void dead(DeliveryEvent event, String reason, String error) {}

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
}
