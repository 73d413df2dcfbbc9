package dev.relayer.store.pass;

import dev.relayer.store.RelayerStore;
import dev.relayer.store.internal.StoreChecks;
import java.time.Instant;
import java.util.Objects;

/**
 * A claimed row whose send failed and that will be retried.
 *
 * @param id outbox id
 * @param error what went wrong; stored in {@code last_error} exactly, except that it is cut to
 *     {@value RelayerStore#MAX_ERROR_LENGTH} characters and that a NUL character or an unpaired
 *     surrogate, which PostgreSQL text cannot hold, becomes U+FFFD
 * @param retryAt the row is not claimable before this instant (the backoff)
 * @param refund whether the attempt the row's claim counted is given back ({@code attempts - 1}):
 *     the failure was not the row's fault (the broker was unavailable, or in an outage)
 */
public record FailedSend(long id, String error, Instant retryAt, boolean refund) {

  public FailedSend {
    Objects.requireNonNull(error, "error");
    StoreChecks.requireInstant("retryAt", retryAt);
  }

  /** A failure charged to the row: its attempt stays counted. */
  public FailedSend(long id, String error, Instant retryAt) {
    this(id, error, retryAt, false);
  }

  /** A failure that was not the row's fault: retried at {@code retryAt}, its attempt given back. */
  public static FailedSend refunded(long id, String error, Instant retryAt) {
    return new FailedSend(id, error, retryAt, true);
  }
}
