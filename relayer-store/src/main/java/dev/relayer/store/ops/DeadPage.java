package dev.relayer.store.ops;

import dev.relayer.api.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One keyset page of the dead table: the rows matching {@code filter} with {@code afterId < id <=
 * upToId}, in id order, at most {@code limit}. A listing reads pages; a replay or purge changes one
 * page per transaction and passes the page's end to {@link #after} for the next, within an {@code
 * upToId} fixed when it began (the highest dead id then), so that rows dying during the operation —
 * replayed rows that fail again get new, higher ids — are left for another run.
 *
 * @param filter which rows
 * @param afterId rows with a higher id only; 0 for the first page
 * @param upToId rows with this id or lower only; {@link Long#MAX_VALUE} for no bound
 * @param limit at most this many rows, 1 to {@value #MAX_LIMIT}
 */
public record DeadPage(DeadFilter filter, long afterId, long upToId, int limit) {

  /** Most rows one page holds. */
  public static final int MAX_LIMIT = 10_000;

  public DeadPage {
    List<String> problems = new ArrayList<>();
    if (filter == null) {
      problems.add("filter must not be null");
    }
    if (afterId < 0) {
      problems.add("afterId must not be negative, was " + afterId);
    }
    if (upToId < afterId) {
      problems.add("upToId must be at least afterId (" + afterId + "), was " + upToId);
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      problems.add("limit must be between 1 and " + MAX_LIMIT + ", was " + limit);
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
  }

  /** The first page of {@code filter}, with no upper bound. */
  public static DeadPage first(DeadFilter filter, int limit) {
    return new DeadPage(Objects.requireNonNull(filter, "filter"), 0, Long.MAX_VALUE, limit);
  }

  /** This page, bounded to ids at most {@code upToId}. */
  public DeadPage upTo(long upToId) {
    return new DeadPage(filter, afterId, upToId, limit);
  }

  /** The next page: rows after {@code id} (the last id of this one). */
  public DeadPage after(long id) {
    return new DeadPage(filter, id, upToId, limit);
  }
}
