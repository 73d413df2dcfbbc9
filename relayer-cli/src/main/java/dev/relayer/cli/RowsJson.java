package dev.relayer.cli;

import dev.relayer.store.ops.DeadGroup;
import dev.relayer.store.ops.ParkedKey;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The JSON objects of a parked key and a dead-row group, one shape for every command that prints
 * them ({@code parked list}, {@code dead groups}, {@code status}).
 */
final class RowsJson {

  private RowsJson() {}

  static Map<String, @Nullable Object> parkedKey(ParkedKey k) {
    Map<String, @Nullable Object> item = new LinkedHashMap<>();
    item.put("ordering_key", k.orderingKey());
    item.put("lane", k.lane());
    item.put("head_id", k.headId());
    item.put("message_id", k.messageId());
    item.put("attempts", k.attempts());
    item.put("parked_at", k.parkedAt());
    item.put("last_error", k.lastError());
    return item;
  }

  static Map<String, @Nullable Object> deadGroup(DeadGroup g) {
    Map<String, @Nullable Object> item = new LinkedHashMap<>();
    item.put("fingerprint", g.fingerprint());
    item.put("count", g.count());
    item.put("first_failed_at", g.firstFailedAt());
    item.put("last_failed_at", g.lastFailedAt());
    item.put("destinations", g.destinations());
    item.put("sample_error", g.sampleError());
    return item;
  }
}
