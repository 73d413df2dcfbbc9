package dev.relayer.dispatch;

/**
 * What one pass over a lane did.
 *
 * @param owner whether this instance held the lane's lease for the pass (otherwise nothing ran)
 * @param claimed rows claimed
 * @param sent rows the broker accepted (deleted)
 * @param failed rows whose send failed: held for a retry, or parked when out of attempts
 * @param givenBack rows claimed but not sent (an earlier row of their key failed, or the pass ran
 *     out of time), given back without spending an attempt
 * @param more whether another pass is likely to find work right away
 */
public record LanePassResult(
    boolean owner, int claimed, int sent, int failed, int givenBack, boolean more) {}
