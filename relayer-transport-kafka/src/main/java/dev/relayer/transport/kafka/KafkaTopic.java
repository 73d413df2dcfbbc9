package dev.relayer.transport.kafka;

import dev.relayer.api.InvalidInputException;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Checks that a destination is a legal Kafka topic name. */
final class KafkaTopic {

  private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]+");
  private static final int MAX_LENGTH = 249;

  private KafkaTopic() {}

  /**
   * Returns {@code destination} when it is a legal topic name: 1 to 249 characters of {@code
   * [a-zA-Z0-9._-]}, and neither {@code .} nor {@code ..}.
   *
   * @throws InvalidInputException naming the destination otherwise
   */
  static String check(String destination) {
    String problem = problem(destination);
    if (problem != null) {
      throw new InvalidInputException(problem);
    }
    return destination;
  }

  /** What makes {@code destination} unusable as a topic, as a sentence naming it, or null. */
  static @Nullable String problem(String destination) {
    String problem = null;
    if (destination.isEmpty()) {
      problem = "it is empty";
    } else if (destination.length() > MAX_LENGTH) {
      problem = "it is longer than " + MAX_LENGTH + " characters";
    } else if (destination.equals(".") || destination.equals("..")) {
      problem = "'.' and '..' are not topic names";
    } else if (!LEGAL.matcher(destination).matches()) {
      problem = "topic names use only a-z, A-Z, 0-9, '.', '_' and '-'";
    }
    return problem == null
        ? null
        : "destination '" + abbreviate(destination) + "' is not a Kafka topic: " + problem;
  }

  private static String abbreviate(String text) {
    return text.length() <= 40
        ? text
        : text.substring(0, 40) + "…(" + text.length() + " characters)";
  }
}
