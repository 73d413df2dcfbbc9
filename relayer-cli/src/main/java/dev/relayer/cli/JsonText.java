package dev.relayer.cli;

/**
 * A JSON value that is already JSON text — the audit trail's {@code filter}, which PostgreSQL
 * returns as a jsonb value — written by {@link Json} as it is, not quoted as a string.
 */
record JsonText(String json) {

  static JsonText of(String json) {
    return new JsonText(json);
  }
}
