package dev.relayer.dispatch;

/**
 * What one sweep pass did.
 *
 * @param leader whether this instance held the sweeper lease for the pass
 * @param claimed rows claimed
 * @param sent rows the broker accepted
 * @param wrapped whether the traversal reached its end and starts over next pass
 */
public record SweepResult(boolean leader, int claimed, int sent, boolean wrapped) {}
