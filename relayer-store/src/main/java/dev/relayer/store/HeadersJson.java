package dev.relayer.store;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jooq.JSONB;
import org.jspecify.annotations.Nullable;

/**
 * The {@code headers} column: a flat JSON object of strings. Written and read here so that the
 * store needs no JSON library.
 */
final class HeadersJson {

  private HeadersJson() {}

  static JSONB write(Map<String, String> headers) {
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

  static void quote(StringBuilder json, String value) {
    json.append('"');
    for (int i = 0; i < value.length(); i++) {
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

  static Map<String, String> read(@Nullable JSONB jsonb) {
    return read(jsonb == null ? null : jsonb.data());
  }

  /** The headers of the text of a JSON object; empty for {@code null}. */
  static Map<String, String> read(@Nullable String json) {
    Map<String, String> headers = new LinkedHashMap<>();
    if (json == null) {
      return headers;
    }
    Parser parser = new Parser(json);
    parser.skipSpace();
    parser.expect('{');
    parser.skipSpace();
    if (parser.peek() == '}') {
      return headers;
    }
    while (true) {
      parser.skipSpace();
      String name = parser.string();
      parser.skipSpace();
      parser.expect(':');
      parser.skipSpace();
      headers.put(name, parser.string());
      parser.skipSpace();
      char next = parser.next();
      if (next == '}') {
        return headers;
      }
      if (next != ',') {
        throw parser.error("expected ',' or '}'");
      }
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

    String string() {
      expect('"');
      StringBuilder value = new StringBuilder();
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
