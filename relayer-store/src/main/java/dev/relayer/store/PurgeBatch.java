package dev.relayer.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One bounded retention delete: at most {@code limit} rows whose timestamp ({@code failed_at} of a
 * dead row, {@code processed_at} of an inbox record) lies in a window before {@code olderThan}.
 *
 * @param olderThan rows strictly older than this instant go (now minus the retention)
 * @param from where the window starts (inclusive): where the previous batch of the same drain left
 *     off ({@link Purged#next()}), so that a batch starts at the rows still there instead of
 *     walking the index entries of rows its predecessors deleted; empty for the first batch, which
 *     starts at the oldest row
 * @param span how wide the window is (it ends at {@code from + span}, or at {@code olderThan} if
 *     that is sooner); empty for a window up to {@code olderThan}
 * @param limit at most this many rows, at least 1
 * @param afterFull whether the previous batch of the drain came back full, so that this window
 *     starts where that one started and some of its rows may be gone already
 */
public record PurgeBatch(
    Instant olderThan,
    Optional<Instant> from,
    Optional<Duration> span,
    int limit,
    boolean afterFull) {

  public PurgeBatch {
    Objects.requireNonNull(olderThan, "olderThan");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(span, "span");
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    if (span.isPresent() && (span.get().isNegative() || span.get().isZero())) {
      throw new IllegalArgumentException("span must be positive, was " + span.get());
    }
  }

  /** The first batch of a drain: from the oldest row up to the cutoff. */
  public static PurgeBatch first(Instant olderThan, int limit) {
    return new PurgeBatch(olderThan, Optional.empty(), Optional.empty(), limit, false);
  }

  /** The batch after {@code previous}: the window it chose. */
  public PurgeBatch after(Purged previous) {
    return new PurgeBatch(
        olderThan,
        previous.next().or(() -> from),
        previous.span(),
        limit,
        previous.deleted() >= limit);
  }
}
