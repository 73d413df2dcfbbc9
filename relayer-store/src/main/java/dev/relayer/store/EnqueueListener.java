package dev.relayer.store;

import java.util.List;
import java.util.Set;
import org.jooq.Configuration;

/**
 * Told about every enqueue, inside the writing transaction, so that a dispatcher can hand the rows
 * over once that transaction commits. Implementations must be fast and must not throw.
 */
@FunctionalInterface
public non-sealed interface EnqueueListener extends StoreHook {

  /**
   * Rows were inserted on {@code transaction}'s connection (not yet committed).
   *
   * @param transaction the configuration the caller passed to the store (its {@code DSLContext}'s)
   * @param unorderedIds ids of the unordered rows, for direct dispatch
   * @param lanes lanes of the ordered rows, to wake their owners
   */
  void enqueued(Configuration transaction, List<Long> unorderedIds, Set<Integer> lanes);
}
