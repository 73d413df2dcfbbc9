package dev.relayer.store.pass;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.internal.StoreChecks;
import java.time.Duration;
import java.time.Instant;

/**
 * Claim the next keyset page of unordered rows: ids in {@code (afterId, upToId]}, pending, due and
 * not under a live claim, in id order, at most {@code limit} — and of those, only rows written at
 * or before {@code createdBefore} or scheduled after their own {@code created_at}.
 *
 * <p>The recovery cutoff keeps the sweeper off rows that direct dispatch is about to claim. A row
 * whose {@code deliver_at} lies after its {@code created_at} (the start of the transaction that
 * wrote it) was not due when it was written; the cutoff does not apply to it, so it is claimed as
 * soon as it is due, not {@code recoveryDelay} after it was written. {@code created_at} is when the
 * writing transaction began, not when it committed: a transaction that runs past a message's {@code
 * deliver_at} hands a due row to direct dispatch that the sweeper may also see; claims are
 * exclusive ({@code FOR UPDATE SKIP LOCKED}, then the claim's stamp), so one of them sends it.
 *
 * @param afterId exclusive lower bound (the traversal cursor); 0 to start at the beginning
 * @param upToId inclusive upper bound fixed when the traversal began
 * @param createdBefore unscheduled rows written later are left to direct dispatch (now minus the
 *     recovery delay)
 * @param limit at most this many rows, at least 1
 * @param now the claimer's clock reading
 * @param claimDuration how long the claim holds
 */
public record ClaimPage(
    long afterId,
    long upToId,
    Instant createdBefore,
    int limit,
    Instant now,
    Duration claimDuration) {

  public ClaimPage {
    StoreChecks.requireInstant("createdBefore", createdBefore);
    StoreChecks.requireInstant("now", now);
    if (limit < 1) {
      throw new InvalidInputException("limit must be at least 1, was " + limit);
    }
    StoreChecks.requirePositive("claimDuration", claimDuration);
  }
}
