package dev.relayer.dispatch;

import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * What {@link RelayerOperator#replayDead} moved back to the outbox.
 *
 * @param replayed dead rows moved back, each now pending with no attempts and a new outbox id
 * @param ordered of those, the rows with an ordering key
 * @param parkedKeys ordering keys, in text order, whose replayed rows wait behind a parked head:
 *     they go out once the head is retried, moved to the dead table or released
 * @param batches how many transactions it took (each moved at most the batch size)
 */
public record DeadReplayResult(long replayed, long ordered, Set<String> parkedKeys, int batches) {

  public DeadReplayResult {
    parkedKeys = Collections.unmodifiableSortedSet(new TreeSet<>(parkedKeys));
  }
}
