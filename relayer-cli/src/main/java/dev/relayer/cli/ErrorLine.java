package dev.relayer.cli;

/**
 * An error message made fit for one line of a terminal: line breaks and other control characters
 * (which a quoted PostgreSQL identifier may contain) are shown as escapes such as {@code \n}.
 */
final class ErrorLine {

  private ErrorLine() {}

  static String of(String message) {
    StringBuilder line = new StringBuilder(message.length());
    message
        .codePoints()
        .forEach(
            c -> {
              switch (c) {
                case '\n' -> line.append("\\n");
                case '\r' -> line.append("\\r");
                case '\t' -> line.append("\\t");
                default -> {
                  if (Character.isISOControl(c) || c == 0x2028 || c == 0x2029) {
                    line.append(String.format("\\u%04x", c));
                  } else {
                    line.appendCodePoint(c);
                  }
                }
              }
            });
    return line.toString();
  }
}
