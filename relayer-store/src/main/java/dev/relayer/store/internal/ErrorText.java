package dev.relayer.store.internal;

import org.jspecify.annotations.Nullable;

/**
 * What Relayer stores of an error text ({@code last_error}): error texts come from brokers and
 * exceptions, and may hold characters that a PostgreSQL {@code text} value cannot. A NUL character
 * and each unpaired UTF-16 surrogate become U+FFFD (the replacement character), and a text longer
 * than {@value #MAX_LENGTH} characters is cut to that length, ending in {@code …} and never between
 * the two halves of a surrogate pair. Everything else — quotes, backslashes, {@code $$}, line
 * breaks — is kept exactly.
 */
public final class ErrorText {

  /** Longest stored error, in characters. */
  public static final int MAX_LENGTH = 2000;

  public static final char REPLACEMENT = '\uFFFD';

  private ErrorText() {}

  /** {@code error} as stored; {@code null} stays {@code null}. */
  public static @Nullable String stored(@Nullable String error) {
    if (error == null) {
      return null;
    }
    String text = error;
    if (text.length() > MAX_LENGTH) {
      int end = MAX_LENGTH - 1;
      if (Character.isHighSurrogate(text.charAt(end - 1))
          && Character.isLowSurrogate(text.charAt(end))) {
        end--;
      }
      text = text.substring(0, end) + "…";
    }
    StringBuilder stored = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean bad;
      if (c == '\0') {
        bad = true;
      } else if (Character.isHighSurrogate(c)) {
        bad = i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1));
        if (!bad) {
          if (stored != null) {
            stored.append(c).append(text.charAt(i + 1));
          }
          i++;
          continue;
        }
      } else {
        bad = Character.isLowSurrogate(c);
      }
      if (bad && stored == null) {
        stored = new StringBuilder(text.length()).append(text, 0, i);
      }
      if (stored != null) {
        stored.append(bad ? REPLACEMENT : c);
      }
    }
    return stored == null ? text : stored.toString();
  }
}
