package dev.relayer.api;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a text value must be before Relayer writes it to PostgreSQL or uses it as an identifier:
 * free of NUL characters (a PostgreSQL {@code text} value cannot hold one, and the statement would
 * fail inside the application's transaction) and of unpaired UTF-16 surrogates (they have no UTF-8
 * form, and the driver would silently write {@code ?} instead, so that two different values became
 * the same one).
 */
public final class TextChecks {

  private TextChecks() {}

  /**
   * Why {@code value} cannot be written, naming {@code field} and the index of the first offending
   * character; empty when it can, or when {@code value} is {@code null}.
   */
  public static Optional<String> problem(String field, @Nullable String value) {
    if (value == null) {
      return Optional.empty();
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\0') {
        return Optional.of(field + " must not contain a NUL character (at index " + i + ")");
      }
      if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return Optional.of(
            field
                + " must not contain an unpaired UTF-16 surrogate (U+"
                + String.format("%04X", (int) c)
                + " at index "
                + i
                + ")");
      }
    }
    return Optional.empty();
  }

  /**
   * Whether {@code c} changes how a terminal lays out the text after it although it is not an ISO
   * control character: the line and paragraph separators (U+2028, U+2029) and the bidirectional
   * formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069). Stored texts that
   * reach an operator's terminal are escaped where they have one; operator names refuse them.
   */
  public static boolean isLayoutControl(int c) {
    return c == 0x2028
        || c == 0x2029
        || c == 0x061C
        || c == 0x200E
        || c == 0x200F
        || (c >= 0x202A && c <= 0x202E)
        || (c >= 0x2066 && c <= 0x2069);
  }

  /** Throws {@link InvalidInputException} with {@link #problem}, if there is one. */
  public static String require(String field, String value) {
    Optional<String> problem = problem(field, value);
    if (problem.isPresent()) {
      throw new InvalidInputException(problem.get());
    }
    return value;
  }
}
