package dev.relayer.spring.boot.transport;

import dev.relayer.api.InvalidInputException;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Builds a transport and names its builder's problems by their {@code relayer.*} property. */
final class PropertyProblems {

  /** A builder problem starts with the option it is about: {@code maxBatchSize must be ...}. */
  private static final Pattern OPTION = Pattern.compile("^([a-z][A-Za-z]*)(?=[ :])");

  private static final Pattern HUMP = Pattern.compile("([a-z0-9])([A-Z])");

  private PropertyProblems() {}

  /**
   * {@code build.get()}, or an {@link InvalidInputException} whose problems name the property:
   * {@code maxBatchSize must be between 1 and 10000, was 0} under {@code relayer.nats} becomes
   * {@code relayer.nats.max-batch-size must be between 1 and 10000, was 0}.
   */
  static <T> T named(String prefix, Supplier<T> build) {
    try {
      return build.get();
    } catch (InvalidInputException e) {
      throw new InvalidInputException(
          e.problems().stream().map(problem -> rename(prefix, problem)).toList());
    }
  }

  static String rename(String prefix, String problem) {
    Matcher option = OPTION.matcher(problem);
    if (!option.find()) {
      return prefix + ": " + problem;
    }
    String kebab = HUMP.matcher(option.group(1)).replaceAll("$1-$2").toLowerCase(Locale.ROOT);
    return prefix + "." + kebab + problem.substring(option.end());
  }
}
