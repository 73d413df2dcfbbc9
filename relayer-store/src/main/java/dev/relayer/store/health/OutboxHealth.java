package dev.relayer.store.health;

import java.time.Duration;
import java.util.Optional;

/**
 * The outbox and dead table at one instant, read in one statement. Ages of pending rows are
 * measured from when the row became due: {@code deliver_at}, else {@code created_at}.
 *
 * <p>The pending figures (backlog, oldest pending age, retrying, failing, never handed off) are of
 * the due pending rows the read visited: the oldest ones by id, at most the query's {@linkplain
 * HealthQuery#rowLimit() row limit}. The read's cost follows the limit (and the rows scheduled for
 * later that it passes over on the way), not the backlog's size. Below the limit they are every due
 * pending row, and every figure is exact. Parked keys and dead rows are always whole counts.
 *
 * @param backlog the eligible rows (pending, due, not under a live claim or retry hold) and the
 *     oldest one's age
 * @param oldestPendingAge the age of the oldest due pending row, eligible or not (under a claim,
 *     waiting out a retry); empty when there is none
 * @param retrying pending rows that failed at least once and wait out their retry hold ({@code
 *     last_error} set, {@code claim_expires_at} after now)
 * @param oldestRetryingAge the age of the oldest of them since it became due. No column records the
 *     first failure; it came at or after the row became due, so this is an upper bound on how long
 *     the row has been failing
 * @param failing pending due rows that failed at least once and were not sent since ({@code
 *     last_error} set): waiting out their retry hold, due again, or claimed for another try. A row
 *     leaves this set only by being sent (deleted), dead or parked, so each of these rows has had
 *     nothing but failures since it became due
 * @param oldestFailingAge the age of the oldest of them since it became due; an upper bound on how
 *     long it has been failing (its first failure came at or after it was due); empty when there is
 *     none
 * @param neverHandedOff unordered pending rows written longer than the recovery delay ago, never
 *     claimed ({@code attempts = 0}, no claim) and due when written: nobody handed them over, or
 *     direct dispatch is not running, and the sweeper has not reached them yet
 * @param rowLimitReached the read visited as many due pending rows as the row limit allows and
 *     stopped: the outbox holds at least that many. The pending counts (eligible, retrying,
 *     failing, never handed off) are then of those rows and are lower bounds. The ages are still
 *     the oldest, since ids follow creation order, with two exceptions: a row's {@code created_at}
 *     is its transaction's start, so a row from a long transaction can be older than rows with
 *     lower ids by up to that transaction's length; and a row written with a {@code deliver_at}
 *     before its own {@code created_at} has been due since then
 * @param parkedKeys ordering keys whose head is parked
 * @param oldestParkedAge how long the longest-parked head has been parked; empty when none is
 * @param deadRows rows in the dead table
 * @param recentDeadRows dead rows whose {@code failed_at} lies within the query's dead window
 */
public record OutboxHealth(
    Backlog backlog,
    Optional<Duration> oldestPendingAge,
    long retrying,
    Optional<Duration> oldestRetryingAge,
    long failing,
    Optional<Duration> oldestFailingAge,
    long neverHandedOff,
    boolean rowLimitReached,
    long parkedKeys,
    Optional<Duration> oldestParkedAge,
    long deadRows,
    long recentDeadRows) {}
