package dev.relayer.store.schema;

import dev.relayer.store.RelayerStore;
import java.util.List;
import java.util.Optional;

/**
 * What {@link RelayerStore#findDrift} found.
 *
 * @param installedVersion the schema version the install's objects amount to: 1 when the four
 *     tables of version 1 exist, 2 when the operations table exists too, 3 when the lane key index
 *     {@code <prefix>outbox_lane_key_idx} exists as well; empty when a table of version 1 is
 *     missing (no install, or a broken one)
 * @param findings every difference from the current schema, in table order; empty when the install
 *     is complete and compatible
 */
public record SchemaReport(Optional<Integer> installedVersion, List<SchemaFinding> findings) {

  public SchemaReport {
    findings = List.copyOf(findings);
  }

  /** Whether there is no finding. */
  public boolean compatible() {
    return findings.isEmpty();
  }
}
