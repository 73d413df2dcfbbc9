package dev.relayer.transport.nats;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.relayer.api.InvalidInputException;
import org.jspecify.annotations.Nullable;

/** Checks that a destination is a NATS subject one can publish to. */
final class NatsSubject {

  /**
   * Bytes of a publish's control line ({@code HPUB <subject> <reply> <header bytes> <total bytes>})
   * besides the subject: the verb, a JetStream reply inbox and the two sizes, with room to spare.
   */
  static final int CONTROL_LINE_OVERHEAD = 128;

  private static final int QUOTED_CHARS = 40;

  private NatsSubject() {}

  /**
   * Returns {@code destination} when it is a literal subject: non-blank, no whitespace, no empty
   * token, no wildcard token ({@code *} or {@code >}), and short enough for a control line of
   * {@code maxControlLine} bytes.
   *
   * @throws InvalidInputException naming the destination otherwise
   */
  static String check(String destination, int maxControlLine) {
    String problem = problem(destination, maxControlLine);
    if (problem != null) {
      throw new InvalidInputException(problem);
    }
    return destination;
  }

  /** What makes {@code destination} unusable, as a sentence naming it, or {@code null}. */
  static @Nullable String problem(String destination, int maxControlLine) {
    String problem = subjectProblem(destination, maxControlLine);
    return problem == null
        ? null
        : "destination '"
            + abbreviate(destination)
            + "' is not a NATS subject to publish to: "
            + problem;
  }

  private static @Nullable String subjectProblem(String subject, int maxControlLine) {
    if (subject.isBlank()) {
      return "it is blank";
    }
    for (int i = 0; i < subject.length(); i++) {
      if (Character.isWhitespace(subject.charAt(i))) {
        return "it contains whitespace";
      }
    }
    for (String token : subject.split("\\.", -1)) {
      if (token.isEmpty()) {
        return "it has an empty token";
      }
      if (token.equals("*") || token.equals(">")) {
        return "it has a wildcard token";
      }
    }
    int limit = maxControlLine - CONTROL_LINE_OVERHEAD;
    // A UTF-16 char is at most 3 bytes of UTF-8: encode only a subject that might be too long.
    int bytes = subject.length() * 3 <= limit ? 0 : subject.getBytes(UTF_8).length;
    if (bytes > limit) {
      return "it is "
          + bytes
          + " bytes long; with a control line of at most "
          + maxControlLine
          + " bytes (the client's maxControlLine) a subject holds at most "
          + limit;
    }
    return null;
  }

  /** {@code text} cut to a readable length for an error message. */
  static String abbreviate(String text) {
    return text.length() <= QUOTED_CHARS
        ? text
        : text.substring(0, QUOTED_CHARS) + "…(" + text.length() + " characters)";
  }
}
