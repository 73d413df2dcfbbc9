package dev.relayer.store.ops;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.TextChecks;
import dev.relayer.store.internal.HeadersJson;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An audit row to write ({@link StoreOperations}): who did what to which rows, and how many. Build
 * it with {@link #dead}, {@link #parkedKey} or {@link #release}, which render the filter as the
 * JSON object {@link AuditEntry#filter()} describes.
 *
 * @param operation what was done
 * @param operator who did it: not blank, at most {@value #MAX_OPERATOR_LENGTH} characters
 * @param filter the JSON object naming what the action covered
 * @param rows how many rows it changed so far, at least 0
 */
public record NewAuditEntry(AuditOperation operation, String operator, String filter, long rows) {

  /** Longest operator name, in characters: {@value}. */
  public static final int MAX_OPERATOR_LENGTH = 200;

  public NewAuditEntry {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(filter, "filter");
    checkOperator(operator);
    if (rows < 0) {
      throw new InvalidInputException("rows must be at least 0, was " + rows);
    }
  }

  /**
   * Checks an operator name: not null, not blank, at most {@value #MAX_OPERATOR_LENGTH} characters
   * and none of the characters that change how a terminal shows text: control characters (C0, DEL
   * and the C1 codes), the line and paragraph separators and the bidirectional formatting
   * characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069). Returns it.
   */
  public static String checkOperator(@Nullable String operator) {
    if (operator == null || operator.isBlank()) {
      throw new InvalidInputException("operator must not be blank");
    }
    if (operator.length() > MAX_OPERATOR_LENGTH) {
      throw new InvalidInputException(
          "operator must be at most "
              + MAX_OPERATOR_LENGTH
              + " characters, had "
              + operator.length());
    }
    for (int i = 0; i < operator.length(); i++) {
      char c = operator.charAt(i);
      if (Character.isISOControl(c)) {
        throw new InvalidInputException(
            "operator must not contain control characters, had "
                + String.format("U+%04X", (int) c)
                + " at index "
                + i);
      }
      if (TextChecks.isLayoutControl(c)) {
        throw new InvalidInputException(
            "operator must not contain line separators or bidirectional formatting characters,"
                + " had "
                + String.format("U+%04X", (int) c)
                + " at index "
                + i);
      }
    }
    return operator;
  }

  /** A replay or purge of the dead rows {@code filter} matches. */
  public static NewAuditEntry dead(
      AuditOperation operation, String operator, DeadFilter filter, long rows) {
    Objects.requireNonNull(filter, "filter");
    Json json = new Json();
    json.text("fingerprint", filter.fingerprint());
    json.text("transport", filter.transport());
    json.text("destination", filter.destination());
    json.text("message_type", filter.messageType());
    json.text("tenant_id", filter.tenantId());
    json.text("ordering_key", filter.orderingKey());
    json.text("reason", filter.reason());
    json.text("failed_from", filter.failedFrom() == null ? null : filter.failedFrom().toString());
    json.text(
        "failed_before", filter.failedBefore() == null ? null : filter.failedBefore().toString());
    if (!filter.ids().isEmpty()) {
      json.numbers("ids", List.copyOf(filter.ids()));
    }
    return new NewAuditEntry(operation, operator, json.done(), rows);
  }

  /** A retry or skip of the parked head of {@code key}. */
  public static NewAuditEntry parkedKey(
      AuditOperation operation, String operator, String key, long rows) {
    Json json = new Json();
    json.text("key", Objects.requireNonNull(key, "key"));
    return new NewAuditEntry(operation, operator, json.done(), rows);
  }

  /** A release of every parked head of {@code lane}, or of every lane when it is null. */
  public static NewAuditEntry release(String operator, @Nullable Integer lane, long rows) {
    Json json = new Json();
    if (lane == null) {
      json.all();
    } else {
      json.number("lane", lane);
    }
    return new NewAuditEntry(AuditOperation.PARKED_RELEASE, operator, json.done(), rows);
  }

  /** A flat JSON object of strings, numbers and number arrays. */
  private static final class Json {
    private final StringBuilder json = new StringBuilder("{");

    private void key(String name) {
      if (json.length() > 1) {
        json.append(',');
      }
      HeadersJson.quote(json, name);
      json.append(':');
    }

    void text(String name, @Nullable String value) {
      if (value != null) {
        key(name);
        HeadersJson.quote(json, value);
      }
    }

    void number(String name, long value) {
      key(name);
      json.append(value);
    }

    void numbers(String name, List<Long> values) {
      key(name);
      json.append('[');
      for (int i = 0; i < values.size(); i++) {
        json.append(i == 0 ? "" : ",").append(values.get(i));
      }
      json.append(']');
    }

    void all() {
      key("all");
      json.append("true");
    }

    String done() {
      return json.append('}').toString();
    }
  }
}
