package dev.relayer.dispatch;

/**
 * What {@link RelayerOperator#purgeDead} deleted.
 *
 * @param purged dead rows deleted
 * @param batches how many statements it took (each deleted at most the batch size)
 */
public record DeadPurgeResult(long purged, int batches) {}
