package dev.relayer.store.internal;

import dev.relayer.schema.SchemaNames;
import dev.relayer.store.schema.SchemaVerifier;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;

/**
 * One store's record of which of its tables it has checked ({@link SchemaVerifier}): each table
 * once, before the store's first write to it, on the writer's connection — one catalog statement
 * per table, then a set lookup per write. Only a check that passed is remembered, so a write to a
 * table that failed its check checks it again; a change to a table after its check passed (an
 * {@code ALTER TABLE} while the application runs) is not seen until the store is created again. A
 * full {@code RelayerStore.verifySchema} that passes counts as a check of every table.
 */
public final class TableChecks {

  private final SchemaNames names;
  private final Set<String> checked = ConcurrentHashMap.newKeySet();

  public TableChecks(SchemaNames names) {
    this.names = names;
  }

  /** Checks each of {@code bases} not checked yet; throws naming the first mismatch. */
  public void beforeWrite(DSLContext dsl, String... bases) {
    for (String base : bases) {
      if (!checked.contains(base)) {
        SchemaVerifier.verifyTable(dsl, names, base);
        checked.add(base);
      }
    }
  }

  /** Checks every table, as {@code RelayerStore.verifySchema} does. */
  public void verifyAll(DSLContext dsl) {
    SchemaVerifier.verify(dsl, names);
    checked.addAll(SchemaVerifier.TABLES.keySet());
  }
}
