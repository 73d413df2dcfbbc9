package dev.relayer.dispatch;

import java.time.Instant;
import java.util.Optional;

/**
 * One transport's sends over the last minute, as this process saw them (direct dispatch, sweeper
 * and lanes together). Counts are messages, not batches. Rows naming an unregistered transport are
 * not sends and are not counted.
 *
 * @param transport the transport's name
 * @param succeeded messages the broker accepted in the last minute
 * @param failed messages whose send failed in the last minute (error, timeout, rejection)
 * @param failing whether the transport counts as failing: every send of the last minute failed
 *     ({@link #failsEverySend()}), or its current run of failures holds rows for a retry that has
 *     not come yet (until 30 s after the latest hold ends, time for the retry to be claimed and
 *     sent), so a transport stays failing across the backoff of its rows, however long, until a
 *     send succeeds
 * @param failingSince when the transport's current run of failures began: the first send call in
 *     which every message failed, after the last one in which any was accepted; empty while it
 *     works
 * @param lastError the most recent failure's error, if any failed in the last minute
 * @param lastFailedDestination the destination of that failure
 */
public record TransportSends(
    String transport,
    long succeeded,
    long failed,
    boolean failing,
    Optional<Instant> failingSince,
    Optional<String> lastError,
    Optional<String> lastFailedDestination) {

  /** Whether, over the last minute, sends were tried and every one of them failed. */
  public boolean failsEverySend() {
    return failed > 0 && succeeded == 0;
  }
}
