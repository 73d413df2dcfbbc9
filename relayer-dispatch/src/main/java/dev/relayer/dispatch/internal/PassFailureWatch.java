package dev.relayer.dispatch.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Tells the operator when a background loop's passes start failing, while they keep failing, and
 * when they work again: the lanes (one slot per lane) and maintenance (one slot). A pass that fails
 * leaves its rows for a later pass, so a failure that repeats at every pass (the database down or
 * refusing a statement, a row no pass can complete) holds those rows for as long as it lasts: it
 * must not go quiet after its first line, nor repeat a stack trace at every pass.
 *
 * <p>Lines: one WARN, with the error, when a pass fails in slots that were working; then, while
 * failures go on, at most one WARN per {@link #REPEAT} naming the failing slots (how long the
 * longest has failed, how many failed passes since the last line and in all, the latest error); one
 * INFO per slot when a pass works again (how long and how many passes it failed). Decided by the
 * injected clock when a pass ends; nothing runs on a timer. Called by the loops' threads: the lock
 * is the watch.
 */
public final class PassFailureWatch {

  /** The least time between two "still failing" lines. */
  public static final Duration REPEAT = Duration.ofMinutes(1);

  private final String store;
  private final String subject;
  private final String firstLineEnd;
  private final Clock clock;
  private final OperatorLog log;
  private final @Nullable Instant[] failingSince;
  private final long[] failedSinceLine;
  private final long[] failedInAll;
  private @Nullable Instant lastLine;

  /**
   * A watch of {@code slots} slots named {@code subject} in its lines ({@code lane}: {@code
   * lanes=[3]}, {@code lane=3}; with one slot the subject alone, {@code maintenance}); {@code
   * firstLineEnd} ends the first line of a failure.
   */
  public PassFailureWatch(
      String store, String subject, int slots, String firstLineEnd, Clock clock, OperatorLog log) {
    this.store = store;
    this.subject = subject;
    this.firstLineEnd = firstLineEnd;
    this.clock = clock;
    this.log = log;
    this.failingSince = new Instant[slots];
    this.failedSinceLine = new long[slots];
    this.failedInAll = new long[slots];
  }

  /** {@code maintenance} for a one-slot watch; else {@code lanes=[1, 2]}. */
  private String label(List<Integer> slots) {
    return failingSince.length == 1 ? subject : subject + "s=" + slots;
  }

  /** {@code maintenance} for a one-slot watch; else {@code lane=3}. */
  private String label(int slot) {
    return failingSince.length == 1 ? subject : subject + "=" + slot;
  }

  /** The pass of a one-slot watch threw {@code error}. */
  public void failed(Throwable error) {
    failed(List.of(0), error);
  }

  /** The pass of a one-slot watch ended without an error. */
  public void worked() {
    worked(0);
  }

  /** A pass over {@code slots} (a lane pass's lanes) threw {@code error}. */
  public synchronized void failed(List<Integer> slots, Throwable error) {
    Instant now = clock.instant();
    List<Integer> fresh = new ArrayList<>();
    for (int slot : slots) {
      if (failingSince[slot] == null) {
        failingSince[slot] = now;
        fresh.add(slot);
      }
      failedSinceLine[slot]++;
      failedInAll[slot]++;
    }
    if (!fresh.isEmpty()) {
      log.warn("store=" + store + " " + label(fresh) + " pass failed; " + firstLineEnd, error);
      fresh.forEach(slot -> failedSinceLine[slot] = 0);
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
    for (int slot = 0; slot < failingSince.length; slot++) {
      Instant started = failingSince[slot];
      if (started != null) {
        failing.add(slot);
        since = started.isBefore(since) ? started : since;
        sinceLine += failedSinceLine[slot];
        inAll += failedInAll[slot];
        failedSinceLine[slot] = 0;
      }
    }
    lastLine = now;
    log.warn(
        "store="
            + store
            + " "
            + label(failing)
            + (failingSince.length == 1
                ? " passes still failing for "
                : " passes still failing, the longest for ")
            + Durations.format(Duration.between(since, now))
            + ": "
            + sinceLine
            + " failed passes since the last report, "
            + inAll
            + " in all; latest error: "
            + error);
  }

  /** A pass over {@code slot} (a lane) ended without an error. */
  public synchronized void worked(int slot) {
    Instant since = failingSince[slot];
    if (since == null) {
      return;
    }
    log.info(
        "store="
            + store
            + " "
            + label(slot)
            + " passes work again after failing for "
            + Durations.format(Duration.between(since, clock.instant()))
            + " ("
            + failedInAll[slot]
            + " failed passes)");
    failingSince[slot] = null;
    failedSinceLine[slot] = 0;
    failedInAll[slot] = 0;
    boolean anyFailing = false;
    for (Instant other : failingSince) {
      anyFailing |= other != null;
    }
    if (!anyFailing) {
      lastLine = null;
    }
  }
}
