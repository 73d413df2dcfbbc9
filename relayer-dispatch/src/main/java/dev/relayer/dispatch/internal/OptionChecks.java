package dev.relayer.dispatch.internal;

import dev.relayer.api.InvalidInputException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Collects every problem of an options object, so that {@code build()} reports them all at once,
 * each naming the option; and binds string maps to builder setters, rejecting unknown keys.
 */
public final class OptionChecks {

  private final String owner;
  private final List<String> problems = new ArrayList<>();

  public OptionChecks(String owner) {
    this.owner = owner;
  }

  /**
   * Longest duration any option takes: 36500 days (100 years). Instants that far from now are in
   * PostgreSQL's range and their nanoseconds fit a {@code long}; a longer wait is a mistake (a
   * retention that should never end is {@code infinite}).
   */
  public static final Duration MAX_DURATION = Duration.ofDays(36_500);

  public OptionChecks positive(String option, Duration value) {
    if (value == null) {
      problems.add(owner + "." + option + " must be set");
    } else if (value.isNegative() || value.isZero()) {
      problems.add(owner + "." + option + " must be positive, was " + Durations.format(value));
    } else {
      atMostMax(option, value);
    }
    return this;
  }

  public OptionChecks notNegative(String option, Duration value) {
    if (value == null) {
      problems.add(owner + "." + option + " must be set");
    } else if (value.isNegative()) {
      problems.add(owner + "." + option + " must not be negative, was " + value);
    } else {
      atMostMax(option, value);
    }
    return this;
  }

  private void atMostMax(String option, Duration value) {
    if (value.compareTo(MAX_DURATION) > 0) {
      problems.add(
          owner
              + "."
              + option
              + " must be at most "
              + Durations.format(MAX_DURATION)
              + " (100 years), was "
              + Durations.format(value));
    }
  }

  public OptionChecks between(String option, Duration value, Duration min, Duration max) {
    if (value == null) {
      problems.add(owner + "." + option + " must be set");
    } else if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      problems.add(
          owner
              + "."
              + option
              + " must be between "
              + Durations.format(min)
              + " and "
              + Durations.format(max)
              + ", was "
              + Durations.format(value));
    }
    return this;
  }

  public OptionChecks between(String option, long value, long min, long max) {
    if (value < min || value > max) {
      problems.add(
          owner + "." + option + " must be between " + min + " and " + max + ", was " + value);
    }
    return this;
  }

  /** {@code value} must lie in [{@code min}, {@code max}] (not NaN). */
  public OptionChecks between(String option, double value, double min, double max) {
    if (!(value >= min && value <= max)) {
      problems.add(
          owner + "." + option + " must be between " + min + " and " + max + ", was " + value);
    }
    return this;
  }

  public OptionChecks rule(boolean holds, String problem) {
    if (!holds) {
      problems.add(owner + ": " + problem);
    }
    return this;
  }

  /** Throws {@link InvalidInputException} listing every problem found, if any. */
  public void throwIfAny() {
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
  }

  /**
   * Applies every entry of {@code values} through {@code setters}; unknown keys, unparsable values
   * and an option given twice are problems. Throws listing all of them.
   *
   * <p>Names bind relaxed, as Spring Boot binds properties: {@code recoveryDelay}, {@code
   * recovery-delay}, {@code recovery_delay} and {@code RECOVERY_DELAY} all name the option {@code
   * recoveryDelay} (case, {@code -} and {@code _} are ignored).
   */
  public static void bind(
      String owner, Map<String, String> values, Map<String, Consumer<String>> setters) {
    List<String> problems = new ArrayList<>();
    Map<String, String> options = new HashMap<>();
    for (String option : setters.keySet()) {
      options.put(relaxed(option), option);
    }
    Set<String> unknown = new TreeSet<>();
    Map<String, String> givenAs = new TreeMap<>();
    Map<String, String> bound = new LinkedHashMap<>();
    for (Map.Entry<String, String> entry : values.entrySet()) {
      String key = entry.getKey();
      if (key == null) {
        problems.add(owner + ": an option name is null (value " + entry.getValue() + ")");
        continue;
      }
      String option = options.get(relaxed(key));
      if (option == null) {
        unknown.add(key);
      } else if (entry.getValue() == null) {
        problems.add(owner + "." + key + " must not be null");
      } else if (givenAs.containsKey(option)) {
        problems.add(
            owner
                + "."
                + option
                + " is given twice, as '"
                + givenAs.get(option)
                + "' and as '"
                + key
                + "'");
      } else {
        givenAs.put(option, key);
        bound.put(option, entry.getValue());
      }
    }
    for (String key : unknown) {
      problems.add(
          owner
              + ": unknown option '"
              + key
              + "' (known: "
              + new TreeSet<>(setters.keySet())
              + ")");
    }
    for (Map.Entry<String, String> entry : bound.entrySet()) {
      try {
        // Only known options are bound.
        Objects.requireNonNull(setters.get(entry.getKey())).accept(entry.getValue());
      } catch (IllegalArgumentException e) {
        problems.add(owner + "." + givenAs.get(entry.getKey()) + ": " + e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
  }

  /** {@code name} without case, {@code -} or {@code _}: the form relaxed names are matched in. */
  private static String relaxed(String name) {
    return name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }

  /**
   * The properties of {@code properties} (its defaults included), for {@link #bind}. An entry whose
   * name or value is not a {@code String} (put there through {@code Map.put}) is a problem, not
   * skipped: {@link java.util.Properties#stringPropertyNames} would silently leave it out.
   */
  public static Map<String, String> toMap(String owner, java.util.Properties properties) {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<Object, Object> entry : properties.entrySet()) {
      if (!(entry.getKey() instanceof String)) {
        problems.add(owner + ": option name " + describe(entry.getKey()) + " is not a String");
      } else if (!(entry.getValue() instanceof String)) {
        problems.add(
            owner + "." + entry.getKey() + " must be a String, was " + describe(entry.getValue()));
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
    Map<String, String> values = new java.util.LinkedHashMap<>();
    properties.stringPropertyNames().forEach(k -> values.put(k, properties.getProperty(k)));
    return values;
  }

  private static String describe(Object value) {
    return value == null ? "null" : value.getClass().getSimpleName() + " " + value;
  }

  /** Parses a whole number for option binding. */
  public static int parseInt(String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not a whole number");
    }
  }

  /** Parses a decimal number for option binding. */
  public static double parseDouble(String text) {
    try {
      return Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not a number");
    }
  }
}
