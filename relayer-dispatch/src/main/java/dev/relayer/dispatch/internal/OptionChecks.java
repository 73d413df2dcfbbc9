package dev.relayer.dispatch.internal;

import dev.relayer.api.InvalidInputException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  public OptionChecks positive(String option, Duration value) {
    if (value == null) {
      problems.add(owner + "." + option + " must be set");
    } else if (value.isNegative() || value.isZero()) {
      problems.add(owner + "." + option + " must be positive, was " + Durations.format(value));
    }
    return this;
  }

  public OptionChecks notNegative(String option, Duration value) {
    if (value == null) {
      problems.add(owner + "." + option + " must be set");
    } else if (value.isNegative()) {
      problems.add(owner + "." + option + " must not be negative, was " + value);
    }
    return this;
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
   * Applies every entry of {@code values} through {@code setters}; unknown keys and unparsable
   * values are problems. Throws listing all of them.
   */
  public static void bind(
      String owner, Map<String, String> values, Map<String, Consumer<String>> setters) {
    List<String> problems = new ArrayList<>();
    Set<String> unknown = new TreeSet<>(values.keySet());
    unknown.removeAll(setters.keySet());
    for (String key : unknown) {
      problems.add(
          owner
              + ": unknown option '"
              + key
              + "' (known: "
              + new TreeSet<>(setters.keySet())
              + ")");
    }
    for (Map.Entry<String, String> entry : values.entrySet()) {
      Consumer<String> setter = setters.get(entry.getKey());
      if (setter == null) {
        continue;
      }
      try {
        setter.accept(entry.getValue());
      } catch (IllegalArgumentException e) {
        problems.add(owner + "." + entry.getKey() + ": " + e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
  }

  /** The string properties of {@code properties}, for {@link #bind}. */
  public static Map<String, String> toMap(java.util.Properties properties) {
    Map<String, String> values = new java.util.LinkedHashMap<>();
    properties.stringPropertyNames().forEach(k -> values.put(k, properties.getProperty(k)));
    return values;
  }

  /** Parses a whole number for option binding. */
  public static int parseInt(String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not a whole number");
    }
  }
}
