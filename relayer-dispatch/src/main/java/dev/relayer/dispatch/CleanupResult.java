package dev.relayer.dispatch;

/**
 * What one cleanup run deleted.
 *
 * @param leader whether this instance held the cleanup lease for the run
 * @param deadDeleted dead rows deleted, over all batches
 * @param inboxDeleted inbox records deleted, over all batches
 * @param keysDeleted idempotency keys deleted, over all batches
 * @param batches delete batches run (each its own transaction)
 * @param drained whether every table with a finite retention came back with a short batch: nothing
 *     past retention is left. False when the run ended on its budget, on the stop signal or on
 *     losing the lease
 */
public record CleanupResult(
    boolean leader,
    long deadDeleted,
    long inboxDeleted,
    long keysDeleted,
    int batches,
    boolean drained) {}
