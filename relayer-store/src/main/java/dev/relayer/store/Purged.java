package dev.relayer.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What one {@link PurgeBatch} deleted, and the window of the next batch of its drain.
 *
 * @param deleted how many rows, at most the batch's limit
 * @param next where the next batch's window starts: the same start when this batch's window was
 *     full (it may hold more), else where this window ended; empty when the window reached the
 *     cutoff and was not full: nothing older is left, the drain is done
 * @param span how wide the next batch's window is; empty for a window up to the cutoff
 */
public record Purged(int deleted, Optional<Instant> next, Optional<Duration> span) {

  /** Whether nothing older than the cutoff was left after this batch: the drain is done. */
  public boolean drained() {
    return next.isEmpty();
  }
}
