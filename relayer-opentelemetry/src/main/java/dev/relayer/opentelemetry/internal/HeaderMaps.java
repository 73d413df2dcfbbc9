package dev.relayer.opentelemetry.internal;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Reads and writes propagation fields in a message's string headers. */
public final class HeaderMaps {

  private HeaderMaps() {}

  /** Reads fields from a {@code Map<String, String>} of headers. */
  public static final TextMapGetter<Map<String, String>> GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public @Nullable String get(@Nullable Map<String, String> carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };

  /** Writes fields into a mutable {@code Map<String, String>} of headers. */
  public static final TextMapSetter<Map<String, String>> SETTER =
      (carrier, key, value) -> {
        if (carrier != null) {
          carrier.put(key, value);
        }
      };

  /**
   * {@code headers} with {@code context} injected by {@code propagator}: each field it writes
   * replaces the header of that name, every other header is kept. The result is immutable, so that
   * {@link dev.relayer.api.spi.OutgoingMessage} takes it without a copy; it is built in one pass,
   * as this runs once per message sent.
   */
  @SuppressWarnings("unchecked")
  public static Map<String, String> injected(
      Map<String, String> headers, TextMapPropagator propagator, Context context) {
    List<String> fields = new ArrayList<>(4);
    propagator.inject(context, fields, PAIRS);
    int written = fields.size() / 2;
    Map.Entry<String, String>[] entries =
        (Map.Entry<String, String>[]) new Map.Entry<?, ?>[headers.size() + written];
    int n = 0;
    for (int i = 0; i < fields.size(); i += 2) {
      entries[n++] = Map.entry(fields.get(i), fields.get(i + 1));
    }
    for (Map.Entry<String, String> header : headers.entrySet()) {
      if (!written(fields, header.getKey())) {
        entries[n++] = header;
      }
    }
    return Map.ofEntries(n == entries.length ? entries : Arrays.copyOf(entries, n));
  }

  private static boolean written(List<String> fields, String name) {
    for (int i = 0; i < fields.size(); i += 2) {
      if (fields.get(i).equals(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Collects the fields a propagator writes as name, value, name, value…; a field written again
   * keeps its last value.
   */
  private static final TextMapSetter<List<String>> PAIRS =
      (carrier, key, value) -> {
        if (carrier == null) {
          return;
        }
        for (int i = 0; i < carrier.size(); i += 2) {
          if (carrier.get(i).equals(key)) {
            carrier.set(i + 1, value);
            return;
          }
        }
        carrier.add(key);
        carrier.add(value);
      };
}
