package dev.relayer.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the JSON the commands print, strictly (RFC 8259, one document): objects become {@link
 * LinkedHashMap}s, arrays {@link List}s, numbers {@link Long} (or {@link Double} with a fraction or
 * exponent). A test reading it checks the output is JSON, not only that it contains some text.
 */
final class JsonReader {

  private final String text;
  private int at;

  private JsonReader(String text) {
    this.text = text;
  }

  static Object read(String text) {
    JsonReader reader = new JsonReader(text.strip());
    Object value = reader.value();
    if (reader.at != reader.text.length()) {
      throw reader.error("text after the document");
    }
    return value;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> object(String text) {
    return (Map<String, Object>) read(text);
  }

  private Object value() {
    skipSpace();
    if (at >= text.length()) {
      throw error("unexpected end");
    }
    char c = text.charAt(at);
    if (c == '{') {
      return object();
    }
    if (c == '[') {
      return array();
    }
    if (c == '"') {
      return string();
    }
    for (Map.Entry<String, Object> literal : LITERALS.entrySet()) {
      if (text.startsWith(literal.getKey(), at)) {
        at += literal.getKey().length();
        return literal.getValue();
      }
    }
    return number();
  }

  /** What JSON {@code null} reads as (maps and lists here hold no Java null). */
  static final Object NULL =
      new Object() {
        @Override
        public String toString() {
          return "null";
        }
      };

  private static final Map<String, Object> LITERALS =
      Map.of("null", NULL, "true", true, "false", false);

  private Map<String, Object> object() {
    Map<String, Object> map = new LinkedHashMap<>();
    at++;
    skipSpace();
    if (peek() == '}') {
      at++;
      return map;
    }
    while (true) {
      skipSpace();
      String key = string();
      skipSpace();
      expect(':');
      if (map.put(key, value()) != null) {
        throw error("duplicate key " + key);
      }
      skipSpace();
      if (peek() == ',') {
        at++;
      } else {
        expect('}');
        return map;
      }
    }
  }

  private List<Object> array() {
    List<Object> list = new ArrayList<>();
    at++;
    skipSpace();
    if (peek() == ']') {
      at++;
      return list;
    }
    while (true) {
      list.add(value());
      skipSpace();
      if (peek() == ',') {
        at++;
      } else {
        expect(']');
        return list;
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder s = new StringBuilder();
    while (true) {
      char c = text.charAt(at++);
      if (c == '"') {
        return s.toString();
      }
      if (c < 0x20) {
        throw error("control character in a string");
      }
      if (c != '\\') {
        s.append(c);
        continue;
      }
      char e = text.charAt(at++);
      switch (e) {
        case '"', '\\', '/' -> s.append(e);
        case 'b' -> s.append('\b');
        case 'f' -> s.append('\f');
        case 'n' -> s.append('\n');
        case 'r' -> s.append('\r');
        case 't' -> s.append('\t');
        case 'u' -> {
          s.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          at += 4;
        }
        default -> throw error("bad escape \\" + e);
      }
    }
  }

  private Object number() {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
    String n = text.substring(start, at);
    if (n.isEmpty()) {
      throw error("unexpected character");
    }
    return n.matches("-?(0|[1-9][0-9]*)") ? (Object) Long.parseLong(n) : Double.parseDouble(n);
  }

  private char peek() {
    return at < text.length() ? text.charAt(at) : '\0';
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    at++;
  }

  private void skipSpace() {
    while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(what + " at " + at + " in: " + text);
  }
}
