package dev.relayer.schema;

import dev.relayer.api.TextChecks;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL identifier rules. Every identifier Relayer renders is quoted, so punctuation, spaces,
 * upper case and Unicode are kept exactly as given; an identifier must be non-empty, contain no NUL
 * character and no unpaired UTF-16 surrogate (which has no UTF-8 form: the driver would send {@code
 * ?}, naming another object), and fit {@value #MAX_BYTES} bytes of UTF-8, because PostgreSQL
 * silently truncates longer names.
 */
public final class Identifiers {

  /** PostgreSQL's limit on an identifier: NAMEDATALEN - 1 bytes. */
  public static final int MAX_BYTES = 63;

  private Identifiers() {}

  /** Quotes {@code identifier} for PostgreSQL, doubling every embedded {@code "}. */
  public static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /** Quotes a schema-qualified name: {@code "schema"."name"}. */
  public static String qualify(String schema, String name) {
    return quote(schema) + '.' + quote(name);
  }

  /** Longest identifier, in characters, that a message quotes whole. */
  static final int MAX_QUOTED_CHARS = 80;

  /**
   * {@code identifier} quoted for a message: whole when it has at most {@value #MAX_QUOTED_CHARS}
   * characters, else its beginning followed by {@code …} and its length, so that a message about a
   * huge value stays short.
   */
  public static String quoteForMessage(String identifier) {
    if (identifier.length() <= MAX_QUOTED_CHARS) {
      return quote(identifier);
    }
    int end = MAX_QUOTED_CHARS - 20;
    if (Character.isHighSurrogate(identifier.charAt(end - 1))) {
      end--;
    }
    return quote(identifier.substring(0, end)) + "… (" + identifier.length() + " characters)";
  }

  /** The number of bytes {@code identifier} takes in UTF-8. */
  public static int byteLength(String identifier) {
    return identifier.getBytes(StandardCharsets.UTF_8).length;
  }

  /**
   * Why {@code identifier} cannot be used, or empty when it can.
   *
   * @param role what the identifier names, for the message ("schema", "outbox table", ...)
   */
  public static Optional<String> problem(String role, @Nullable String identifier) {
    if (identifier == null) {
      return Optional.of(role + " must not be null");
    }
    if (identifier.isEmpty()) {
      return Optional.of(role + " must not be empty");
    }
    Optional<String> text =
        TextChecks.problem(role + " " + quoteForMessage(identifier), identifier);
    if (text.isPresent()) {
      return text;
    }
    int bytes = byteLength(identifier);
    if (bytes > MAX_BYTES) {
      return Optional.of(
          role
              + " "
              + quoteForMessage(identifier)
              + " is "
              + bytes
              + " bytes in UTF-8; PostgreSQL allows at most "
              + MAX_BYTES);
    }
    return Optional.empty();
  }
}
