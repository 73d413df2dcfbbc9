package dev.relayer.store.schema;

import dev.relayer.store.RelayerStore;

/**
 * One difference between an install and the current schema ({@link RelayerStore#findDrift}).
 *
 * @param kind what is wrong: {@code schema}, {@code table}, {@code column}, {@code constraint} or
 *     {@code index}
 * @param name the object, unquoted and relative to the schema: {@code relayer_outbox}, {@code
 *     relayer_outbox.attempts}, {@code relayer_outbox_pending_idx}
 * @param problem the whole finding as one line, for example {@code index relayer_outbox_pending_idx
 *     missing} or {@code column relayer_outbox.attempts has type text, expected integer}
 */
public record SchemaFinding(String kind, String name, String problem) {

  /** {@link #problem()}. */
  @Override
  public String toString() {
    return problem;
  }
}
