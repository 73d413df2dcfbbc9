package dev.relayer.dispatch.internal.lane;

import dev.relayer.dispatch.internal.Durations;
import dev.relayer.dispatch.internal.OperatorLog;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Tells the operator when a lane's passes start failing, while they keep failing, and when they
 * work again. A pass that fails leaves its rows for a later pass, so a failure that repeats at
 * every pass (the database refusing the lane's statements, a row no pass can complete) holds the
 * lane's keys for as long as it lasts: it must not go quiet after its first line.
 *
 * <p>Lines: one WARN, with the error, when a pass fails in lanes that were working; then, while
 * failures go on, at most one WARN per {@link #REPEAT} for the lanes failing longest (how long, how
 * many failed passes since the last line and in all, the latest error); one INFO per lane when a
 * pass works again (how long and how many passes it failed). Decided by the injected clock when a
 * pass ends; nothing runs on a timer. Called by the lane threads: the lock is the watch.
 */
final class LaneFailureWatch {

  /** The least time between two "still failing" lines. */
  static final Duration REPEAT = Duration.ofMinutes(1);

  private final String store;
  private final Clock clock;
  private final OperatorLog log;
  private final @Nullable Instant[] failingSince;
  private final long[] failedSinceLine;
  private final long[] failedInAll;
  private @Nullable Instant lastLine;

  LaneFailureWatch(String store, int laneCount, Clock clock, OperatorLog log) {
    this.store = store;
    this.clock = clock;
    this.log = log;
    this.failingSince = new Instant[laneCount];
    this.failedSinceLine = new long[laneCount];
    this.failedInAll = new long[laneCount];
  }

  /** A pass over {@code lanes} threw {@code error}. */
  synchronized void failed(List<Integer> lanes, Throwable error) {
    Instant now = clock.instant();
    List<Integer> fresh = new ArrayList<>();
    for (int lane : lanes) {
      if (failingSince[lane] == null) {
        failingSince[lane] = now;
        fresh.add(lane);
      }
      failedSinceLine[lane]++;
      failedInAll[lane]++;
    }
    if (!fresh.isEmpty()) {
      log.warn(
          "store=" + store + " lanes=" + fresh + " pass failed; their rows stay for a later pass",
          error);
      fresh.forEach(lane -> failedSinceLine[lane] = 0);
      if (lastLine == null) {
        lastLine = now;
      }
      return;
    }
    if (lastLine != null && Duration.between(lastLine, now).compareTo(REPEAT) < 0) {
      return;
    }
    List<Integer> failing = new ArrayList<>();
    Instant since = now;
    long sinceLine = 0;
    long inAll = 0;
    for (int lane = 0; lane < failingSince.length; lane++) {
      Instant started = failingSince[lane];
      if (started != null) {
        failing.add(lane);
        since = started.isBefore(since) ? started : since;
        sinceLine += failedSinceLine[lane];
        inAll += failedInAll[lane];
        failedSinceLine[lane] = 0;
      }
    }
    lastLine = now;
    log.warn(
        "store="
            + store
            + " lanes="
            + failing
            + " passes still failing, the longest for "
            + Durations.format(Duration.between(since, now))
            + ": "
            + sinceLine
            + " failed lane passes since the last report, "
            + inAll
            + " in all; latest error: "
            + error);
  }

  /** A pass over {@code lane} ended without an error. */
  synchronized void worked(int lane) {
    Instant since = failingSince[lane];
    if (since == null) {
      return;
    }
    log.info(
        "store="
            + store
            + " lane="
            + lane
            + " passes work again after failing for "
            + Durations.format(Duration.between(since, clock.instant()))
            + " ("
            + failedInAll[lane]
            + " failed passes)");
    failingSince[lane] = null;
    failedSinceLine[lane] = 0;
    failedInAll[lane] = 0;
    boolean anyFailing = false;
    for (Instant other : failingSince) {
      anyFailing |= other != null;
    }
    if (!anyFailing) {
      lastLine = null;
    }
  }
}
