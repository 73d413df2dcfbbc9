package dev.relayer.dispatch.internal;

import dev.relayer.store.pass.SweepBounds;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Where the sweeper's traversals start: above a <em>floor</em>, an id at or below which no
 * unordered row is pending or can become pending.
 *
 * <p>Starting every traversal from id 0 costs nothing while vacuum keeps the pending index clean,
 * but a held xmin horizon (a long report, {@code pg_dump}, an idle session in a transaction) keeps
 * the index entry of every row sent since it began, and the first page of each traversal would walk
 * all of them (0.7 s a page at 5.7 million such entries; docs/benchmarks.md, "A held xmin
 * horizon"). So each traversal reads, in one snapshot ({@link SweepBounds}), the lowest pending
 * unordered id above the floor and the writers still running, and starts from that lowest id.
 *
 * <p>The floor rises only when it is safe. Ids are drawn in order, so a row that appears later
 * below the lowest id a read found was written by a transaction running at that read. The read is
 * kept as a <em>candidate</em> until a later read finds every transaction that was running at it
 * ended ({@code oldestRunningXid} at or past the candidate's {@code snapshotXmax}); from then on
 * every row below the candidate's id is visible, so the floor rises to just below the lower of the
 * candidate's id and the later read's. A read that finds nothing pending above the floor (in a
 * steady state, often: direct dispatch sends rows within milliseconds) takes as its candidate the
 * id after the highest any read found, since every id up to it was drawn before. A writer that
 * keeps a transaction with an id open holds the floor where it is until it ends.
 *
 * <p>Two kinds of writer escape that rule: one that drew its id before its transaction had a
 * transaction id (between an insert's identity value and its row being written) and one whose
 * identity sequence was given a cache (ids then no longer follow commit order across sessions). So
 * at least every {@code fullInterval} a traversal starts from id 0 again, and a row either leaves
 * behind is swept at most that late.
 */
final class SweepFloor {

  private final Duration fullInterval;
  private long floor;

  /** The read the floor may rise to once every writer running at it has ended; or none. */
  private @Nullable Candidate candidate;

  private long highestSeen;
  private @Nullable Instant lastFull;

  SweepFloor(Duration fullInterval) {
    this.fullInterval = fullInterval;
  }

  /**
   * The id above which the next traversal reads its bounds: the floor, or 0 when a traversal from
   * the lowest id is due at {@code now}.
   */
  long readFrom(Instant now) {
    if (lastFull == null || !now.isBefore(lastFull.plus(fullInterval))) {
      floor = 0;
      candidate = null;
      lastFull = now;
    }
    return floor;
  }

  /** Takes the bounds read above {@link #readFrom}: settles the candidate or keeps one. */
  void settle(SweepBounds bounds) {
    long lowest = bounds.lowest().orElse(Long.MAX_VALUE);
    Candidate settling = candidate;
    if (settling != null && bounds.oldestRunningXid() >= settling.snapshotXmax()) {
      floor = Math.min(settling.id(), lowest) - 1;
      candidate = null;
    }
    bounds.highest().ifPresent(h -> highestSeen = Math.max(highestSeen, h));
    if (candidate == null) {
      if (bounds.lowest().isPresent()) {
        candidate = new Candidate(lowest, bounds.snapshotXmax());
      } else if (highestSeen > floor) {
        // Nothing pending above the floor: every id up to the highest one seen was drawn before
        // this read, so only a writer running now can still make one of them pending.
        candidate = new Candidate(highestSeen + 1, bounds.snapshotXmax());
      }
    }
  }

  /**
   * A read's lowest id (or the id after the highest seen), and the first transaction id it did not
   * see.
   */
  private record Candidate(long id, long snapshotXmax) {}

  /** The current floor: no unordered row at or below it is pending or can become pending. */
  long floor() {
    return floor;
  }
}
