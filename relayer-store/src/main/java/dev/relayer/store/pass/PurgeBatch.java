package dev.relayer.store.pass;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One bounded retention delete: at most {@code limit} rows whose timestamp ({@code failed_at} of a
 * dead row, {@code processed_at} of an inbox record) lies before {@code olderThan}, oldest first.
 *
 * @param olderThan rows strictly older than this instant go (now minus the retention)
 * @param from the keyset of a drain: only rows at or after this instant, where the previous batch
 *     of the same drain ended ({@link Purged#next()}), so that a batch starts at the rows still
 *     there instead of walking the index entries of rows its predecessors deleted; empty for the
 *     first batch
 * @param limit at most this many rows, at least 1
 */
public record PurgeBatch(Instant olderThan, Optional<Instant> from, int limit) {

  public PurgeBatch {
    Objects.requireNonNull(olderThan, "olderThan");
    Objects.requireNonNull(from, "from");
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
  }

  /** The first batch of a drain. */
  public static PurgeBatch first(Instant olderThan, int limit) {
    return new PurgeBatch(olderThan, Optional.empty(), limit);
  }

  /** The batch after {@code previous}: starts where it ended. */
  public PurgeBatch after(Purged previous) {
    return new PurgeBatch(olderThan, previous.next().or(() -> from), limit);
  }
}
