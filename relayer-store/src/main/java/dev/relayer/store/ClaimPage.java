package dev.relayer.store;

import dev.relayer.api.InvalidInputException;
import java.time.Duration;
import java.time.Instant;

/**
 * Claim the next keyset page of unordered rows: ids in {@code (afterId, upToId]}, written at or
 * before {@code createdBefore}, pending, due and not under a live claim, in id order, at most
 * {@code limit}.
 *
 * @param afterId exclusive lower bound (the traversal cursor); 0 to start at the beginning
 * @param upToId inclusive upper bound fixed when the traversal began
 * @param createdBefore rows written later are left to direct dispatch (now minus recovery delay)
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
