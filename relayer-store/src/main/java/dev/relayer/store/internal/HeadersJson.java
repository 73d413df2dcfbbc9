package dev.relayer.store.internal;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jooq.JSONB;
import org.jspecify.annotations.Nullable;

/**
 * The {@code headers} column: a flat JSON object of strings. Written and read here so that the
 * store needs no JSON library.
 */
public final class HeadersJson {

  private HeadersJson() {}

  public static JSONB write(Map<String, String> headers) {
    StringBuilder json = new StringBuilder(16 + headers.size() * 32).append('{');
    boolean first = true;
    for (Map.Entry<String, String> header : headers.entrySet()) {
      if (!first) {
        json.append(',');
      }
      first = false;
      quote(json, header.getKey());
      json.append(':');
      quote(json, header.getValue());
    }
    return JSONB.valueOf(json.append('}').toString());
  }

  public static void quote(StringBuilder json, String value) {
    json.append('"');
    int plain = plainPrefix(value);
    json.append(value, 0, plain);
    for (int i = plain; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        default -> {
          if (c < 0x20) {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }

  /** How many of {@code value}'s first characters need no escape. */
  private static int plainPrefix(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\' || c < 0x20) {
        return i;
      }
    }
    return value.length();
  }

  public static Map<String, String> read(@Nullable JSONB jsonb) {
    return read(jsonb == null ? null : jsonb.data());
  }

  /**
   * The headers of the text of a JSON object, as an immutable map (so that {@link
   * dev.relayer.api.spi.OutgoingMessage} takes it without a copy); empty for {@code null}. A name
   * given twice keeps its last value. This runs once for every row claimed, so it slices names and
   * values out of the text and collects them into the map once.
   */
  public static Map<String, String> read(@Nullable String json) {
    if (json == null) {
      return Map.of();
    }
    Parser parser = new Parser(json);
    parser.skipSpace();
    parser.expect('{');
    parser.skipSpace();
    if (parser.peek() == '}') {
      return Map.of();
    }
    String[] fields = new String[8];
    int count = 0;
    while (true) {
      if (count == fields.length) {
        fields = Arrays.copyOf(fields, count * 2);
      }
      parser.skipSpace();
      fields[count++] = parser.string();
      parser.skipSpace();
      parser.expect(':');
      parser.skipSpace();
      fields[count++] = parser.string();
      parser.skipSpace();
      char next = parser.next();
      if (next == '}') {
        return immutable(fields, count);
      }
      if (next != ',') {
        throw parser.error("expected ',' or '}'");
      }
    }
  }

  /** The map of {@code count} strings given as name, value, name, value…; last value wins. */
  @SuppressWarnings("unchecked")
  private static Map<String, String> immutable(String[] fields, int count) {
    Map.Entry<String, String>[] entries =
        (Map.Entry<String, String>[]) new Map.Entry<?, ?>[count / 2];
    for (int i = 0; i < count; i += 2) {
      entries[i / 2] = Map.entry(fields[i], fields[i + 1]);
    }
    try {
      return Map.ofEntries(entries);
    } catch (IllegalArgumentException duplicateName) {
      Map<String, String> lastWins = new LinkedHashMap<>();
      for (Map.Entry<String, String> entry : entries) {
        lastWins.put(entry.getKey(), entry.getValue());
      }
      return Map.copyOf(lastWins);
    }
  }

  private static final class Parser {
    private final String text;
    private int at;

    Parser(String text) {
      this.text = text;
    }

    char peek() {
      if (at >= text.length()) {
        throw error("unexpected end");
      }
      return text.charAt(at);
    }

    char next() {
      char c = peek();
      at++;
      return c;
    }

    void skipSpace() {
      while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
        at++;
      }
    }

    void expect(char expected) {
      if (next() != expected) {
        throw error("expected '" + expected + "'");
      }
    }

    /** A string: sliced out of the text when it has no escape, decoded when it has. */
    String string() {
      expect('"');
      int start = at;
      for (int i = start; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == '"') {
          at = i + 1;
          return text.substring(start, i);
        }
        if (c == '\\') {
          at = i;
          return escaped(new StringBuilder(i - start + 16).append(text, start, i));
        }
      }
      at = text.length();
      throw error("unexpected end");
    }

    private String escaped(StringBuilder value) {
      while (true) {
        char c = next();
        if (c == '"') {
          return value.toString();
        }
        if (c != '\\') {
          value.append(c);
          continue;
        }
        char escaped = next();
        switch (escaped) {
          case '"', '\\', '/' -> value.append(escaped);
          case 'b' -> value.append('\b');
          case 'f' -> value.append('\f');
          case 'n' -> value.append('\n');
          case 'r' -> value.append('\r');
          case 't' -> value.append('\t');
          case 'u' -> {
            if (at + 4 > text.length()) {
              throw error("short \\u escape");
            }
            value.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
            at += 4;
          }
          default -> throw error("bad escape \\" + escaped);
        }
      }
    }

    IllegalStateException error(String what) {
      return new IllegalStateException(
          "headers column is not a flat JSON object of strings (" + what + " at " + at + ")");
    }
  }
}
