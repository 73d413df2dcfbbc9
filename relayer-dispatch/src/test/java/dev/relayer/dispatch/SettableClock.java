package dev.relayer.dispatch;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A UTC clock that reads what the test set, so that no test waits for time to pass. */
final class SettableClock extends Clock {

  private volatile Instant now;

  SettableClock(Instant start) {
    this.now = start;
  }

  void set(Instant instant) {
    now = instant;
  }

  void advance(Duration by) {
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
