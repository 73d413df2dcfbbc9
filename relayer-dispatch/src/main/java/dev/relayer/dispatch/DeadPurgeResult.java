package dev.relayer.dispatch;

/**
 * What {@link RelayerOperator#purgeDead} deleted.
 *
 * @param purged dead rows deleted
 * @param batches how many batches it took, each its own transaction (each deleted at most the batch
 *     size)
 */
public record DeadPurgeResult(long purged, int batches) {}
