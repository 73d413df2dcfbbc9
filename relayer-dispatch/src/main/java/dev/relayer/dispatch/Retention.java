package dev.relayer.dispatch;

import dev.relayer.dispatch.internal.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How long cleanup keeps dead rows or inbox records: a positive duration, or infinite (never
 * deleted).
 */
public final class Retention {

  private static final Retention INFINITE = new Retention(null);

  private final @Nullable Duration duration;

  private Retention(@Nullable Duration duration) {
    this.duration = duration;
  }

  /** Keep for {@code duration}; must be positive (checked by the options builder). */
  public static Retention of(Duration duration) {
    return new Retention(java.util.Objects.requireNonNull(duration, "duration"));
  }

  /** Never delete. */
  public static Retention infinite() {
    return INFINITE;
  }

  /** {@code infinite}, or a duration in ISO-8601 or short form ({@code 7d}). */
  public static Retention parse(String text) {
    return "infinite".equalsIgnoreCase(text.trim()) ? INFINITE : of(Durations.parse(text));
  }

  public boolean isInfinite() {
    return duration == null;
  }

  /** The duration; empty when infinite. */
  public Optional<Duration> duration() {
    return Optional.ofNullable(duration);
  }

  /** Rows older than the returned instant may go; empty when infinite. */
  public Optional<Instant> cutoff(Instant now) {
    return duration().map(now::minus);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Retention r && java.util.Objects.equals(duration, r.duration);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hashCode(duration);
  }

  @Override
  public String toString() {
    return duration == null ? "infinite" : Durations.format(duration);
  }
}
