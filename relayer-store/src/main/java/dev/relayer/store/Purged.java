package dev.relayer.store;

import java.time.Instant;
import java.util.Optional;

/**
 * What one {@link PurgeBatch} deleted.
 *
 * @param deleted how many rows; fewer than the batch's limit means nothing older is left
 * @param newest the newest timestamp the batch reached, where the next batch of the drain starts;
 *     empty when it found no row past the cutoff
 */
public record Purged(int deleted, Optional<Instant> newest) {

  /** Whether the batch came back short of {@code batch.limit()}: the drain is done. */
  public boolean shortOf(PurgeBatch batch) {
    return deleted < batch.limit();
  }
}
