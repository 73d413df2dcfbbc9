package dev.relayer.transport.rabbitmq;

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
    int typeBytes = utf8Length(message.messageType());
    if (typeBytes > MAX_SHORT_STRING_BYTES) {
      problems.add(
          "messageType is "
              + typeBytes
              + " bytes of UTF-8; an AMQP message type holds at most "
              + MAX_SHORT_STRING_BYTES);
    }
    for (String name : message.headers().keySet()) {
      int nameBytes = utf8Length(name);
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

  /**
   * Bytes of {@code text} in UTF-8, counted without encoding it (the check runs on every enqueue).
   * An unpaired surrogate counts 3 bytes, more than the 1 the client writes for it.
   */
  static int utf8Length(String text) {
    int bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  /** {@code text} cut to a readable length for an error message. */
  static String abbreviate(String text) {
    return text.length() <= QUOTED_CHARS
        ? text
        : text.substring(0, QUOTED_CHARS) + "…(" + text.length() + " characters)";
  }
}
