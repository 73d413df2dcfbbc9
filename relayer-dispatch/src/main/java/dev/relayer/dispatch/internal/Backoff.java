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
    Duration base = base(attempts);
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
