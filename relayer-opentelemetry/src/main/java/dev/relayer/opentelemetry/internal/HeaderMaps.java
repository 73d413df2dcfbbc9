package dev.relayer.opentelemetry.internal;

import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
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
}
