package dev.relayer.store.pass;

import java.time.Instant;
import java.util.Optional;

/**
 * What one {@link PurgeBatch} deleted.
 *
 * @param deleted how many rows, at most the batch's limit (fewer when rows sharing the timestamp
 *     where the batch ended are left for the next one)
 * @param next the timestamp where the next batch of the drain starts; empty when the batch reached
 *     the cutoff and nothing older is left: the drain is done
 */
public record Purged(int deleted, Optional<Instant> next) {

  /** Whether nothing older than the cutoff was left after this batch: the drain is done. */
  public boolean drained() {
    return next.isEmpty();
  }
}
