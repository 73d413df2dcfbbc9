package dev.relayer.transport.nats;

import dev.relayer.api.InvalidInputException;

/** Checks that a destination is a NATS subject one can publish to. */
final class NatsSubject {

  private NatsSubject() {}

  /**
   * Returns {@code destination} when it is a literal subject: non-blank, no whitespace, no empty
   * token, no wildcard token ({@code *} or {@code >}).
   *
   * @throws InvalidInputException naming the destination otherwise
   */
  static String check(String destination) {
    String problem = problem(destination);
    if (problem != null) {
      throw new InvalidInputException(
          "destination '" + destination + "' is not a NATS subject to publish to: " + problem);
    }
    return destination;
  }

  private static String problem(String subject) {
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
    return null;
  }
}
