package dev.relayer.store.pass;

import java.util.OptionalLong;

/**
 * Where a sweep traversal starts and ends, and which writers could still add rows below its start,
 * all read in one snapshot.
 *
 * <p>Ids come from the outbox's identity sequence in the order they are drawn, so a row that
 * becomes visible later with an id below {@code lowest} was written by a transaction that was still
 * running when these bounds were read. Such a transaction's id is below {@code snapshotXmax}; once
 * a later read's {@code oldestRunningXid} has reached it, every one of those writers has ended.
 *
 * @param lowest the lowest pending unordered id above the floor asked for, if any
 * @param highest the highest pending unordered id above the same floor, if any: the fixed end of
 *     the traversal
 * @param oldestRunningXid the oldest transaction id still running ({@code
 *     pg_snapshot_xmin(pg_current_snapshot())})
 * @param snapshotXmax the first transaction id not yet assigned ({@code
 *     pg_snapshot_xmax(pg_current_snapshot())}): every writer running at the read has an id below
 *     it
 */
public record SweepBounds(
    OptionalLong lowest, OptionalLong highest, long oldestRunningXid, long snapshotXmax) {}
