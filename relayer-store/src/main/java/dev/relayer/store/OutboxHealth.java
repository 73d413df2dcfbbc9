package dev.relayer.store;

import java.time.Duration;
import java.util.Optional;

/**
 * The outbox and dead table at one instant, read in one statement. Ages of pending rows are
 * measured from when the row became due: {@code deliver_at}, else {@code created_at}.
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
 * @param neverHandedOff unordered pending rows written longer than the recovery delay ago, never
 *     claimed ({@code attempts = 0}, no claim) and due when written: nobody handed them over, or
 *     direct dispatch is not running, and the sweeper has not reached them yet
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
    long neverHandedOff,
    long parkedKeys,
    Optional<Duration> oldestParkedAge,
    long deadRows,
    long recentDeadRows) {}
