package dev.relayer.dispatch.internal;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Capped exponential backoff with "equal jitter": after attempt {@code n} the base delay is {@code
 * min(max, initial · 2^(n-1))}, and the delay drawn lies between half the base and the base, so
 * that rows failing together do not come back together.
 */
public record Backoff(Duration initial, Duration max) {

  /** The delay before retrying a row that has used {@code attempts} claims (≥ 1). */
  public Duration delayAfter(int attempts) {
    return jittered(base(attempts));
  }

  /**
   * The delay before retrying a row failed in an outage that has lasted {@code failingFor}: the
   * longer of its own backoff and the outage's age, capped at {@code max}, with the same jitter.
   * Rows waiting out an outage so come back less often the longer it lasts, and no later than
   * {@code max} after the broker returns.
   */
  public Duration delayDuring(int attempts, Duration failingFor) {
    Duration own = base(attempts);
    Duration base = failingFor.compareTo(own) > 0 ? failingFor : own;
    return jittered(base.compareTo(max) > 0 ? max : base);
  }

  private static Duration jittered(Duration base) {
    long half = base.toMillis() / 2;
    return Duration.ofMillis(
        half + ThreadLocalRandom.current().nextLong(base.toMillis() - half + 1));
  }

  /** The capped delay without jitter. */
  public Duration base(int attempts) {
    int exponent = Math.max(0, Math.min(attempts - 1, 30));
    Duration base = initial.multipliedBy(1L << exponent);
    return base.compareTo(max) > 0 || base.isNegative() ? max : base;
  }
}
