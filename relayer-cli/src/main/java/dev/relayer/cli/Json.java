package dev.relayer.cli;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The JSON that {@code --json} prints: objects ({@link Map}, in the map's order), arrays ({@link
 * List}), strings, numbers, booleans, {@code null} and {@link JsonText} (JSON written as it is);
 * anything else (an {@code Instant}, a {@code UUID}) is written as its {@code toString()} text. One
 * document per line.
 */
final class Json {

  private Json() {}

  static String write(@Nullable Object value) {
    StringBuilder json = new StringBuilder();
    write(json, value);
    return json.toString();
  }

  private static void write(StringBuilder json, @Nullable Object value) {
    if (value == null) {
      json.append("null");
    } else if (value instanceof Number || value instanceof Boolean) {
      json.append(value);
    } else if (value instanceof JsonText text) {
      json.append(text.json());
    } else if (value instanceof Map<?, ?> map) {
      json.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        if (!first) {
          json.append(',');
        }
        first = false;
        string(json, String.valueOf(entry.getKey()));
        json.append(':');
        write(json, entry.getValue());
      }
      json.append('}');
    } else if (value instanceof List<?> list) {
      json.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          json.append(',');
        }
        write(json, list.get(i));
      }
      json.append(']');
    } else {
      string(json, value.toString());
    }
  }

  private static void string(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }
}
