package dev.relayer.transport.rabbitmq;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.relayer.api.spi.OutgoingMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * What AMQP 0-9-1 cannot carry in a message's properties: the message type and header names are
 * short strings, at most 255 bytes of UTF-8 (the message id is a UUID, header values are long
 * strings). The client refuses a longer one when it encodes the publish, so the transport checks
 * before publishing and rejects such a message on its own.
 */
final class AmqpFields {

  /** The most bytes an AMQP short string holds. */
  static final int MAX_SHORT_STRING_BYTES = 255;

  private static final int QUOTED_CHARS = 40;

  private AmqpFields() {}

  /** One sentence per field of {@code message} that AMQP cannot carry; empty when all fit. */
  static List<String> problems(OutgoingMessage message) {
    List<String> problems = new ArrayList<>(0);
    int typeBytes = message.messageType().getBytes(UTF_8).length;
    if (typeBytes > MAX_SHORT_STRING_BYTES) {
      problems.add(
          "messageType is "
              + typeBytes
              + " bytes of UTF-8; an AMQP message type holds at most "
              + MAX_SHORT_STRING_BYTES);
    }
    for (String name : message.headers().keySet()) {
      int nameBytes = name.getBytes(UTF_8).length;
      if (nameBytes > MAX_SHORT_STRING_BYTES) {
        problems.add(
            "header '"
                + abbreviate(name)
                + "': its name is "
                + nameBytes
                + " bytes of UTF-8; an AMQP header name holds at most "
                + MAX_SHORT_STRING_BYTES);
      }
    }
    return problems;
  }

  /** {@code text} cut to a readable length for an error message. */
  static String abbreviate(String text) {
    return text.length() <= QUOTED_CHARS
        ? text
        : text.substring(0, QUOTED_CHARS) + "…(" + text.length() + " characters)";
  }
}
