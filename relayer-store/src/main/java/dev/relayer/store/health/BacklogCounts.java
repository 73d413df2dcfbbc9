package dev.relayer.store.health;

import java.time.Duration;
import java.util.Optional;

/**
 * The outbox rows of one group (or of several) at an instant, each row in exactly one state:
 *
 * <ul>
 *   <li><b>parked</b>: {@code status = 'parked'}, the head of an ordering key held for an operator
 *       (so also the number of parked keys);
 *   <li><b>scheduled</b>: pending and not due yet ({@code deliver_at} after now);
 *   <li><b>retrying</b>: pending, due, failed at least once and waiting out its retry hold ({@code
 *       last_error} set, {@code claim_expires_at} after now);
 *   <li><b>in flight</b>: pending, due, under a live claim and never failed: being sent now;
 *   <li><b>eligible</b>: pending, due and under no live claim or hold: waiting for a sender.
 * </ul>
 *
 * Rows of an ordered key behind a parked head are pending, and count as such. Ages are measured
 * from when a row became due ({@code deliver_at}, else {@code created_at}).
 *
 * @param rows every row: the sum of the five states
 * @param eligible rows waiting for a sender
 * @param inFlight rows being sent
 * @param retrying rows waiting out a retry hold
 * @param scheduled rows not due yet
 * @param parked parked heads
 * @param oldestPendingAge how long the oldest due pending row (eligible, in flight or retrying) has
 *     waited; empty when there is none
 * @param oldestEligibleAge how long the oldest eligible row has waited; empty when there is none
 */
public record BacklogCounts(
    long rows,
    long eligible,
    long inFlight,
    long retrying,
    long scheduled,
    long parked,
    Optional<Duration> oldestPendingAge,
    Optional<Duration> oldestEligibleAge) {

  /** No rows. */
  public static final BacklogCounts NONE =
      new BacklogCounts(0, 0, 0, 0, 0, 0, Optional.empty(), Optional.empty());

  /** These rows and {@code other}'s together. */
  public BacklogCounts plus(BacklogCounts other) {
    return new BacklogCounts(
        rows + other.rows,
        eligible + other.eligible,
        inFlight + other.inFlight,
        retrying + other.retrying,
        scheduled + other.scheduled,
        parked + other.parked,
        older(oldestPendingAge, other.oldestPendingAge),
        older(oldestEligibleAge, other.oldestEligibleAge));
  }

  private static Optional<Duration> older(Optional<Duration> a, Optional<Duration> b) {
    if (a.isEmpty()) {
      return b;
    }
    return b.isEmpty() || a.get().compareTo(b.get()) >= 0 ? a : b;
  }
}
