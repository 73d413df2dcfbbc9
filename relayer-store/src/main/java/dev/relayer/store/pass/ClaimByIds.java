package dev.relayer.store.pass;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.internal.StoreChecks;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * Claim these unordered rows, if they are pending, due and not under a live claim.
 *
 * @param ids outbox ids, typically those written by one committed transaction
 * @param now the claimer's clock reading
 * @param claimDuration how long the claim holds; must exceed the send plus the delete
 */
public record ClaimByIds(Collection<Long> ids, Instant now, Duration claimDuration) {

  public ClaimByIds {
    if (ids == null) {
      throw new InvalidInputException("ids must not be null");
    }
    for (Long id : ids) {
      if (id == null) {
        throw new InvalidInputException("ids must not contain null");
      }
    }
    ids = List.copyOf(ids);
    StoreChecks.requireInstant("now", now);
    StoreChecks.requirePositive("claimDuration", claimDuration);
  }
}
