package dev.relayer.store.health;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.internal.StoreChecks;
import java.time.Instant;
import java.util.Objects;

/**
 * What {@link HealthReads#backlogBreakdown} reads.
 *
 * @param now the instant the counts and ages are measured at (the JVM clock, as claims use)
 * @param by what to group by
 * @param limit how many groups, at most, are reported one by one (1 to {@value #MAX_LIMIT}); the
 *     rest are summed into one
 */
public record BacklogQuery(Instant now, BacklogGrouping by, int limit) {

  /** The largest {@link #limit()}: {@value}. */
  public static final int MAX_LIMIT = 1000;

  public BacklogQuery {
    StoreChecks.requireInstant("now", now);
    Objects.requireNonNull(by, "by");
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new InvalidInputException(
          "limit must be between 1 and " + MAX_LIMIT + ", was " + limit);
    }
  }
}
