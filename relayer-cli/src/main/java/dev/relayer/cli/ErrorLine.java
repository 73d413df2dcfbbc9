package dev.relayer.cli;

/**
 * An error message made fit for one line of a terminal: line breaks, other control characters
 * (which a quoted PostgreSQL identifier may contain), C1 codes and bidirectional formatting
 * characters ({@link TerminalWriter#isUnsafe}) are shown as escapes such as {@code \n}, and a line
 * longer than {@value #MAX_LENGTH} characters keeps its start and end, with the middle left out (a
 * huge argument must not make a huge error line).
 */
final class ErrorLine {

  private ErrorLine() {}

  /** Longest line, in characters, before the middle is left out. */
  static final int MAX_LENGTH = 1000;

  /** What of a line too long is kept: its start, and its end (which names the help command). */
  private static final int HEAD = 700;

  private static final int TAIL = 200;

  static String of(String message) {
    String line = escaped(message);
    if (line.length() <= MAX_LENGTH) {
      return line;
    }
    int head = HEAD;
    if (Character.isHighSurrogate(line.charAt(head - 1))) {
      head--;
    }
    int tail = line.length() - TAIL;
    if (Character.isLowSurrogate(line.charAt(tail))) {
      tail++;
    }
    return line.substring(0, head)
        + " […"
        + (tail - head)
        + " characters left out…] "
        + line.substring(tail);
  }

  private static String escaped(String message) {
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
                  if (TerminalWriter.isUnsafe(c)) {
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
