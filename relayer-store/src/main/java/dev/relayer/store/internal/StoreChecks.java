package dev.relayer.store.internal;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.TextChecks;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** Argument checks shared by the store's request records. */
public final class StoreChecks {

  private StoreChecks() {}

  /** Longest duration a request takes: 36500 days (100 years), far inside PostgreSQL's range. */
  public static final Duration MAX_DURATION = Duration.ofDays(36_500);

  /** Earliest instant Relayer writes: 0001-01-01T00:00:00Z. */
  public static final Instant MIN_INSTANT = Instant.parse("0001-01-01T00:00:00Z");

  /** Latest instant Relayer writes: 9999-12-31T23:59:59.999999Z. */
  public static final Instant MAX_INSTANT = Instant.parse("9999-12-31T23:59:59.999999Z");

  public static void requirePositive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new InvalidInputException(name + " must be positive, was " + value);
    }
    if (value.compareTo(MAX_DURATION) > 0) {
      throw new InvalidInputException(
          name + " must be at most " + MAX_DURATION.toDays() + " days, was " + value);
    }
  }

  /** Why {@code value} cannot be written as a {@code timestamptz}, or empty; null is a problem. */
  public static Optional<String> instantProblem(String name, Instant value) {
    if (value == null) {
      return Optional.of(name + " must not be null");
    }
    if (value.isBefore(MIN_INSTANT) || value.isAfter(MAX_INSTANT)) {
      return Optional.of(
          name + " must be between " + MIN_INSTANT + " and " + MAX_INSTANT + ", was " + value);
    }
    return Optional.empty();
  }

  public static Instant requireInstant(String name, Instant value) {
    Optional<String> problem = instantProblem(name, value);
    if (problem.isPresent()) {
      throw new InvalidInputException(problem.get());
    }
    return value;
  }

  /** {@code value}, checked to be not blank and writable ({@link TextChecks}). */
  public static String requireText(String name, String value) {
    if (value == null || value.isBlank()) {
      throw new InvalidInputException(name + " must not be blank");
    }
    return TextChecks.require(name, value);
  }

  /** {@code value} (which may be {@code null}), checked to be writable ({@link TextChecks}). */
  public static String requireWritable(String name, String value) {
    return TextChecks.require(name, value);
  }

  /**
   * {@code changed}, the rows a statement changed, checked to be at most {@code expected}: more is
   * impossible and throws {@link IllegalStateException}. Fewer means lost races, not an error.
   */
  public static int atMost(String operation, int changed, int expected) {
    if (changed > expected) {
      throw new IllegalStateException(
          operation + " changed " + changed + " rows, expected at most " + expected);
    }
    return changed;
  }
}
