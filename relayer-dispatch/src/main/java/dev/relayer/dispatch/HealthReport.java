package dev.relayer.dispatch;

import dev.relayer.store.LeaseState;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A backlog health check.
 *
 * @param status from the eligible backlog and the thresholds
 * @param at the instant the backlog was evaluated at
 * @param eligible rows that are pending, due and not under a live claim
 * @param oldestEligibleAge how long the oldest eligible row has waited since it became due
 * @param parkedKeys ordering keys held for an operator
 * @param deadRows rows in the dead table
 * @param sweeperLease who holds the sweeper lease and until when (database clock), if anyone
 */
public record HealthReport(
    HealthStatus status,
    Instant at,
    long eligible,
    Optional<Duration> oldestEligibleAge,
    long parkedKeys,
    long deadRows,
    Optional<LeaseState> sweeperLease) {}
