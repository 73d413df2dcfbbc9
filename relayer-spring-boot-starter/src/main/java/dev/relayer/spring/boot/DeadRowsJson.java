package dev.relayer.spring.boot;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.DeadPurgeResult;
import dev.relayer.dispatch.DeadReplayResult;
import dev.relayer.store.ops.DeadFilter;
import dev.relayer.store.ops.DeadGroup;
import dev.relayer.store.ops.DeadRowSummary;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The dead-row parameters and answers of the {@code relayer} endpoint: a {@link DeadFilter} from
 * the request's fields (query parameters of a read, JSON fields of an action, the same names), and
 * groups, rows and action results as JSON objects.
 */
final class DeadRowsJson {

  private DeadRowsJson() {}

  /** The filter fields of a request, by the names the endpoint takes. */
  record FilterFields(
      @Nullable String fingerprint,
      @Nullable String transport,
      @Nullable String destination,
      @Nullable String messageType,
      @Nullable String tenantId,
      @Nullable String orderingKey,
      @Nullable String reason,
      @Nullable String failedFrom,
      @Nullable String failedBefore) {

    /**
     * The filter; throws {@link InvalidInputException} naming a field that is blank or an instant
     * that is not ISO-8601 ({@code 2026-03-01T00:00:00Z}).
     */
    DeadFilter filter() {
      return DeadFilter.builder()
          .fingerprint(fingerprint)
          .transport(transport)
          .destination(destination)
          .messageType(messageType)
          .tenantId(tenantId)
          .orderingKey(orderingKey)
          .reason(reason)
          .failedFrom(instant("failedFrom", failedFrom))
          .failedBefore(instant("failedBefore", failedBefore))
          .build();
    }

    private static @Nullable Instant instant(String name, @Nullable String value) {
      if (value == null) {
        return null;
      }
      try {
        return Instant.parse(value);
      } catch (DateTimeParseException e) {
        throw new InvalidInputException(
            name
                + " must be an ISO-8601 instant such as 2026-03-01T00:00:00Z, was '"
                + value
                + "'");
      }
    }
  }

  static Map<String, Object> filter(DeadFilter filter) {
    Map<String, Object> json = new LinkedHashMap<>();
    put(json, "fingerprint", filter.fingerprint());
    put(json, "transport", filter.transport());
    put(json, "destination", filter.destination());
    put(json, "messageType", filter.messageType());
    put(json, "tenantId", filter.tenantId());
    put(json, "orderingKey", filter.orderingKey());
    put(json, "reason", filter.reason());
    put(json, "failedFrom", filter.failedFrom());
    put(json, "failedBefore", filter.failedBefore());
    return json;
  }

  static Map<String, Object> group(DeadGroup group) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("fingerprint", group.fingerprint());
    json.put("count", group.count());
    json.put("firstFailedAt", group.firstFailedAt().toString());
    json.put("lastFailedAt", group.lastFailedAt().toString());
    json.put("sampleError", group.sampleError());
    json.put("destinations", group.destinations());
    return json;
  }

  static Map<String, Object> row(DeadRowSummary row) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("id", row.id());
    json.put("messageId", row.messageId().toString());
    json.put("transport", row.transport());
    json.put("destination", row.destination());
    json.put("messageType", row.messageType());
    json.put("orderingKey", row.orderingKey());
    json.put("tenantId", row.tenantId());
    json.put("attempts", row.attempts());
    json.put("lastError", row.lastError());
    json.put("failedAt", row.failedAt().toString());
    json.put("reason", row.reason());
    json.put("fingerprint", row.fingerprint());
    json.put("bodyBytes", row.bodyBytes());
    return json;
  }

  static void replayed(Map<String, Object> json, DeadReplayResult result) {
    json.put("replayed", result.replayed());
    json.put("ordered", result.ordered());
    json.put("parkedKeys", List.copyOf(result.parkedKeys()));
    json.put("batches", result.batches());
  }

  static void purged(Map<String, Object> json, DeadPurgeResult result) {
    json.put("purged", result.purged());
    json.put("batches", result.batches());
  }

  private static void put(Map<String, Object> json, String name, @Nullable Object value) {
    if (value != null) {
      json.put(name, value.toString());
    }
  }
}
