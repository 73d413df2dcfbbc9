package dev.relayer.dispatch.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses option durations: ISO-8601 ({@code PT30S}) or short forms ({@code 500ms 30s 5m 2h 7d}).
 */
public final class Durations {

  private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private Durations() {}

  /** The duration {@code text} names; throws {@link IllegalArgumentException} naming the text. */
  public static Duration parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("a duration must not be null");
    }
    String value = text.trim();
    Matcher shortForm = SHORT.matcher(value.toLowerCase(Locale.ROOT));
    if (shortForm.matches()) {
      try {
        long amount = Long.parseLong(shortForm.group(1));
        return switch (shortForm.group(2)) {
          case "ms" -> Duration.ofMillis(amount);
          case "s" -> Duration.ofSeconds(amount);
          case "m" -> Duration.ofMinutes(amount);
          case "h" -> Duration.ofHours(amount);
          default -> Duration.ofDays(amount);
        };
      } catch (ArithmeticException | NumberFormatException e) {
        throw new IllegalArgumentException(
            "'" + text + "' is too long for a duration (options take at most 36500d)");
      }
    }
    try {
      return Duration.parse(value);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration (use ISO-8601 like PT30S, or 500ms, 30s, 5m, 2h, 7d)");
    }
  }

  /** {@code 30s}, {@code 5m}, {@code 7d} when exact, else ISO-8601; for logs. */
  public static String format(Duration duration) {
    if (duration.isZero()) {
      return "0s";
    }
    long millis;
    try {
      millis = duration.toMillis();
    } catch (ArithmeticException e) {
      return duration.toString();
    }
    if (Duration.ofMillis(millis).equals(duration)) {
      if (millis % 86_400_000 == 0) {
        return millis / 86_400_000 + "d";
      }
      if (millis % 3_600_000 == 0) {
        return millis / 3_600_000 + "h";
      }
      if (millis % 60_000 == 0) {
        return millis / 60_000 + "m";
      }
      if (millis % 1000 == 0) {
        return millis / 1000 + "s";
      }
      return millis + "ms";
    }
    return duration.toString();
  }
}
