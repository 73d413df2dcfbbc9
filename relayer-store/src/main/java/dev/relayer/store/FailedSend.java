package dev.relayer.store;

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
 */
public record FailedSend(long id, String error, Instant retryAt) {

  public FailedSend {
    Objects.requireNonNull(error, "error");
    StoreChecks.requireInstant("retryAt", retryAt);
  }
}
