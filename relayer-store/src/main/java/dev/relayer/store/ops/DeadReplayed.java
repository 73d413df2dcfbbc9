package dev.relayer.store.ops;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What one page of a replay ({@link DeadRun#replay}) moved back to the outbox.
 *
 * @param rows the rows moved, in dead-id order; fewer than the page held when another transaction
 *     held some of them (a concurrent replay or purge) or had already removed them
 * @param parkedKeys ordering keys among {@code rows} whose key is parked: those rows wait behind
 *     the parked head until an operator retries it, moves it to the dead table or releases it
 * @param next where the next page starts ({@link DeadPage#after}); empty when this page was the
 *     last
 */
public record DeadReplayed(List<ReplayedRow> rows, Set<String> parkedKeys, OptionalLong next) {

  public DeadReplayed {
    rows = List.copyOf(rows);
    parkedKeys = Set.copyOf(parkedKeys);
  }
}
