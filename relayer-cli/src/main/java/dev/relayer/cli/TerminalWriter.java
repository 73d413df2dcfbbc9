package dev.relayer.cli;

import dev.relayer.api.TextChecks;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What every command writes passes through here on its way to the terminal, line by line, so that
 * no code path — picocli's own usage errors included — can print a password or drive the terminal:
 *
 * <ul>
 *   <li><b>passwords</b>: the value of every {@code password=} parameter ({@code sslpassword=} too)
 *       and the password of a URL's user information ({@code scheme://user:secret@host}) become
 *       {@code ***}, and so does every occurrence of the {@code PGPASSWORD} value when it has at
 *       least {@value #MIN_SECRET_LENGTH} characters (a shorter one would blank out ordinary text;
 *       it is then only kept out of the output the commands compose);
 *   <li><b>terminal controls</b>: control characters other than line feed and tab (C0, DEL, the C1
 *       codes U+0080–U+009F), the line and paragraph separators and the bidirectional formatting
 *       characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) are shown as {@code
 *       \}{@code uXXXX}, which is also a valid escape inside a JSON string.
 * </ul>
 *
 * A line is written when it ends or when the stream is flushed (a prompt waiting for an answer). An
 * error of the underlying stream is reported as an {@link IOException}, so that the {@link
 * PrintWriter} over this one sees it in {@code checkError()}. {@code relayer db script} writes its
 * script past this filter, exactly as generated: escaping would change a quoted identifier.
 */
final class TerminalWriter extends Writer {

  /** The shortest {@code PGPASSWORD} replaced wherever it occurs. */
  static final int MIN_SECRET_LENGTH = 4;

  private static final Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)(password=)[^&\\s;'\"]+");

  private static final Pattern USER_INFO =
      Pattern.compile("(?i)(\\b[a-z][a-z0-9+.-]*://[^/\\s:@'\"]*:)[^@/\\s'\"]+@");

  private final PrintWriter target;
  private final @Nullable String secret;
  private final StringBuilder line = new StringBuilder();

  /**
   * @param target the stream written to
   * @param pgPassword the {@code PGPASSWORD} value, or null
   */
  TerminalWriter(PrintWriter target, @Nullable String pgPassword) {
    this.target = target;
    this.secret =
        pgPassword != null && pgPassword.length() >= MIN_SECRET_LENGTH ? pgPassword : null;
  }

  /** A print writer over {@code target} that filters as described, flushed at every line end. */
  static PrintWriter over(PrintWriter target, @Nullable String pgPassword) {
    return new PrintWriter(new TerminalWriter(target, pgPassword), true);
  }

  @Override
  public void write(char[] buffer, int offset, int length) throws IOException {
    for (int i = offset; i < offset + length; i++) {
      char c = buffer[i];
      line.append(c);
      if (c == '\n') {
        emit();
      }
    }
  }

  @Override
  public void flush() throws IOException {
    emit();
    target.flush();
    check();
  }

  @Override
  public void close() throws IOException {
    flush();
  }

  private void emit() throws IOException {
    if (line.length() == 0) {
      return;
    }
    String text = line.toString();
    line.setLength(0);
    // A CRLF line end stays one: only a carriage return inside a line is escaped.
    boolean crlf = text.endsWith("\r\n");
    String body = crlf ? text.substring(0, text.length() - 2) : text;
    target.write(escaped(redacted(body, secret)) + (crlf ? "\r\n" : ""));
    check();
  }

  private void check() throws IOException {
    if (target.checkError()) {
      throw new IOException("the stream could not be written");
    }
  }

  /** {@code text} with every password described in the class documentation replaced. */
  static String redacted(String text, @Nullable String secret) {
    String result = PASSWORD_PARAMETER.matcher(text).replaceAll("$1***");
    result = USER_INFO.matcher(result).replaceAll("$1***@");
    if (secret != null && secret.length() >= MIN_SECRET_LENGTH) {
      result = result.replace(secret, "***");
    }
    return result;
  }

  /** {@code text} with the characters described in the class documentation escaped. */
  static String escaped(String text) {
    StringBuilder result = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (isUnsafe(c)) {
        if (result == null) {
          result = new StringBuilder(text.length() + 16).append(text, 0, i);
        }
        result.append(String.format("\\u%04x", (int) c));
      } else if (result != null) {
        result.append(c);
      }
    }
    return result == null ? text : result.toString();
  }

  /**
   * Whether {@code c} changes what a terminal shows beyond itself: controls other than line feed
   * and tab, separators and bidirectional formatting characters.
   */
  static boolean isUnsafe(int c) {
    if (c == '\n' || c == '\t') {
      return false;
    }
    return Character.isISOControl(c) || TextChecks.isLayoutControl(c);
  }
}
