package dev.relayer.dispatch;

/**
 * What one cleanup pass deleted.
 *
 * @param leader whether this instance held the cleanup lease for the pass
 * @param deadDeleted dead rows deleted (at most {@code batchSize})
 * @param inboxDeleted inbox records deleted (at most {@code batchSize})
 */
public record CleanupResult(boolean leader, int deadDeleted, int inboxDeleted) {}
