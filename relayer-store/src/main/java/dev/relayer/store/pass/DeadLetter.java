package dev.relayer.store.pass;

import dev.relayer.store.internal.StoreChecks;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Rows to move to the dead table: they will not be retried automatically.
 *
 * @param ids outbox ids
 * @param reason why, for operators: {@code max-attempts}, {@code unknown-transport}, {@code
 *     operator}
 * @param error the last error; stored in {@code last_error} and fingerprinted
 * @param failedAt when they failed (drives dead-row retention)
 */
public record DeadLetter(Collection<Long> ids, String reason, String error, Instant failedAt) {

  public DeadLetter {
    ids = List.copyOf(ids);
    StoreChecks.requireText("reason", reason);
    Objects.requireNonNull(error, "error");
    StoreChecks.requireInstant("failedAt", failedAt);
  }
}
