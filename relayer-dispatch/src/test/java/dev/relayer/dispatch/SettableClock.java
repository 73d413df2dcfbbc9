package dev.relayer.dispatch;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/** A UTC clock that reads what the test set, so that no test waits for time to pass. */
public final class SettableClock extends Clock {

  private volatile Instant now;

  public SettableClock(Instant start) {
    this.now = start;
  }

  void set(Instant instant) {
    now = instant;
  }

  /**
   * Moves this clock to a whole second past {@code written} unless it already reads later: a row
   * the database stamped after the test set its start is then not in the sweeper's future, however
   * slowly the machine ran in between.
   */
  void catchUp(Instant written) {
    if (!now.isAfter(written)) {
      now = written.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    }
  }

  public void advance(Duration by) {
    now = now.plus(by);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("a UTC clock");
  }
}
