package dev.relayer.dispatch.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Counts rows that reached the sweeper instead of direct dispatch, and summarises them at WARN at
 * most once a minute each: hand-offs dropped because the direct-dispatch queue was full, and rows
 * the sweeper delivered that nobody had claimed before (never handed off: the after-commit hook is
 * missing, or the hand-off was dropped or lost with its process). The first occurrence is logged at
 * once; later ones are counted and reported with the next occurrence a minute or more after the
 * previous line. Decided when counted, by the injected clock.
 */
public final class HandoffWatch {

  /** The least time between two lines of one kind. */
  public static final Duration EVERY = Duration.ofMinutes(1);

  private final String store;
  private final Clock clock;
  private final OperatorLog log;
  private final Tally dropped = new Tally();
  private final Tally unhanded = new Tally();

  public HandoffWatch(String store, Clock clock, OperatorLog log) {
    this.store = store;
    this.clock = clock;
    this.log = log;
  }

  /** Counts since the previous line of one kind. */
  private static final class Tally {
    @Nullable Instant lastLine;
    @Nullable Instant since;
    long count;
    long total;

    /** Adds {@code n}; returns the count to report now, or nothing to stay quiet. */
    synchronized OptionalLong add(long n, Instant now) {
      if (since == null) {
        since = now;
      }
      count += n;
      total += n;
      if (lastLine != null && now.isBefore(lastLine.plus(EVERY))) {
        return OptionalLong.empty();
      }
      long report = count;
      lastLine = now;
      count = 0;
      return OptionalLong.of(report);
    }

    synchronized @Nullable Instant since() {
      return since;
    }

    synchronized long total() {
      return total;
    }
  }

  /** {@code count} hand-off ids were dropped because the direct-dispatch queue was full. */
  public void dropped(int count) {
    OptionalLong reported = dropped.add(count, clock.instant());
    if (reported.isPresent() && reported.getAsLong() > 0) {
      long report = reported.getAsLong();
      log.warn(
          "store="
              + store
              + " direct-dispatch queue full: dropped="
              + report
              + " hand-offs since the last report ("
              + dropped.total()
              + " since "
              + dropped.since()
              + "); the sweeper delivers those rows after recoveryDelay. Raise queueCapacity or"
              + " workers if this goes on");
    }
  }

  /** The sweeper delivered {@code count} rows that no one had claimed before. */
  public void sweptWithoutHandoff(int count) {
    if (count == 0) {
      return;
    }
    OptionalLong reported = unhanded.add(count, clock.instant());
    if (reported.isPresent() && reported.getAsLong() > 0) {
      long report = reported.getAsLong();
      log.warn(
          "store="
              + store
              + " the sweeper delivered rows="
              + report
              + " that were never handed to direct dispatch ("
              + unhanded.total()
              + " since "
              + unhanded.since()
              + "); each waited recoveryDelay. If the after-commit hook is missing, install"
              + " dispatcher.transactionListener() on the configuration your transactions run on,"
              + " or call dispatcher.afterCommit(ids) after each commit");
    }
  }

  /** Hand-offs dropped since this process started. */
  public long droppedTotal() {
    return dropped.total();
  }

  /** Rows the sweeper delivered without a hand-off since this process started. */
  public long sweptWithoutHandoffTotal() {
    return unhanded.total();
  }
}
