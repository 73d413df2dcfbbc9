package dev.relayer.store.ops;

import dev.relayer.schema.SchemaNames;
import dev.relayer.store.Lanes;
import dev.relayer.store.internal.StoreChecks;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import org.jooq.DSLContext;
import org.jooq.Record3;
import org.jspecify.annotations.Nullable;

/**
 * One replay or purge of the dead rows a filter matches, run in batches of {@link DeadPage}s, each
 * in a transaction; started by {@link StoreOperations#replayRun} or {@link
 * StoreOperations#purgeRun}. Its audit row is inserted in the transaction of the first batch that
 * changed rows, and its count raised in the transaction of each later one: a batch whose
 * transaction rolls back takes its insert or its increment with it. Call {@link #committed} after
 * each batch's transaction committed, so that the run keeps the row it inserted. Not thread-safe:
 * one run, one caller.
 */
public final class DeadRun {

  private final StoreOperations ops;
  private final AuditOperation operation;
  private final String operator;
  private final DeadFilter filter;
  private @Nullable Long id;
  private @Nullable Long pending;

  DeadRun(StoreOperations ops, AuditOperation operation, String operator, DeadFilter filter) {
    this.ops = ops;
    this.operation = operation;
    this.operator = NewAuditEntry.checkOperator(operator);
    this.filter = Objects.requireNonNull(filter, "filter");
  }

  /** The filter of the run: every page must carry it. */
  public DeadFilter filter() {
    return filter;
  }

  /**
   * Moves the dead rows of {@code page} back to the outbox, with the run's audit, atomically (on an
   * auto-commit connection in a transaction of its own): pending, with no attempts and no error,
   * under new outbox ids drawn in dead-id order, with the same message id, transport, destination,
   * type, headers, body, {@code created_at}, ordering key and tenant. The lane is the key's lane
   * (the stored one, unless it was written under another lane count). {@code deliver_at} becomes
   * {@code replayedAt}, so that ages count from the replay and the sweeper takes an unordered row
   * at its next pass, as it takes a scheduled one. Before moving, it takes the advisory locks of
   * the page's ordering keys that an enqueue takes, so that a replayed row's id follows every id of
   * its key committed before it and precedes every one committed after it; a replayed ordered row
   * therefore goes behind the rows of its key still in the outbox, and a parked key stays parked
   * with the replayed rows behind its head ({@link DeadReplayed#parkedKeys()}). Rows another
   * transaction holds are skipped, so concurrent replays move each row once. Run pages of one
   * replay in id order ({@link DeadReplayed#next()}) so that rows of one key keep their order.
   */
  public DeadReplayed replay(DSLContext dsl, DeadPage page, Instant replayedAt) {
    requireOperation(AuditOperation.DEAD_REPLAY, page);
    StoreChecks.requireInstant("replayedAt", replayedAt);
    ops.tableChecks()
        .beforeWrite(dsl, SchemaNames.OUTBOX, SchemaNames.OUTBOX_DEAD, SchemaNames.OPERATIONS);
    return ops.jdbc()
        .atomically(
            dsl,
            tx -> {
              DSLContext mapped = ops.mapping().map(tx);
              var candidates = DeadRowQueries.candidates(mapped, page);
              if (candidates.isEmpty()) {
                return new DeadReplayed(List.of(), Set.of(), OptionalLong.empty());
              }
              List<Long> ids = new ArrayList<>(candidates.size());
              Set<String> keys = new TreeSet<>();
              Map<String, Integer> relaned = new HashMap<>();
              int laneCount = ops.options().laneCount();
              for (var candidate : candidates) {
                ids.add(candidate.value1());
                String key = candidate.value2();
                if (key != null) {
                  keys.add(key);
                  int lane = Lanes.laneOf(key, laneCount);
                  if (!Objects.equals(candidate.value3(), lane)) {
                    relaned.put(key, lane);
                  }
                }
              }
              ops.lockKeys(tx, keys);
              List<ReplayedRow> rows =
                  OutboxDeadQueries.replay(mapped, ids, page.filter(), replayedAt, relaned);
              Set<String> replayedKeys = new TreeSet<>();
              rows.forEach(
                  r -> {
                    if (r.orderingKey() != null) {
                      replayedKeys.add(r.orderingKey());
                    }
                  });
              Set<String> parked = ParkedKeyQueries.parkedAmong(mapped, replayedKeys);
              record(tx, rows.size());
              return new DeadReplayed(
                  rows, parked, DeadRowQueries.next(page, ids.size(), ids.get(ids.size() - 1)));
            });
  }

  /**
   * Deletes the dead rows of {@code page}, with the run's audit, atomically, skipping rows another
   * transaction holds (so concurrent purges delete each row once); never a row outside the page's
   * filter. Run pages one after another with {@link DeadDeleted#next()}.
   */
  public DeadDeleted purge(DSLContext dsl, DeadPage page) {
    requireOperation(AuditOperation.DEAD_PURGE, page);
    ops.tableChecks().beforeWrite(dsl, SchemaNames.OUTBOX_DEAD, SchemaNames.OPERATIONS);
    return ops.jdbc()
        .atomically(
            dsl,
            tx -> {
              DSLContext mapped = ops.mapping().map(tx);
              var candidates = DeadRowQueries.candidates(mapped, page);
              if (candidates.isEmpty()) {
                return new DeadDeleted(0, OptionalLong.empty());
              }
              List<Long> ids = candidates.stream().map(Record3::value1).toList();
              int deleted =
                  StoreChecks.atMost(
                      "purge", OutboxDeadQueries.delete(mapped, ids, page.filter()), ids.size());
              record(tx, deleted);
              return new DeadDeleted(
                  deleted, DeadRowQueries.next(page, ids.size(), ids.get(ids.size() - 1)));
            });
  }

  /** The batch's transaction committed: an audit row it inserted is now the run's. */
  public void committed() {
    if (pending != null) {
      id = pending;
      pending = null;
    }
  }

  /** Records {@code rows} changed in the transaction {@code tx}; nothing when none. */
  private void record(DSLContext tx, long rows) {
    if (rows == 0) {
      return;
    }
    if (id == null) {
      pending = ops.audit(tx, NewAuditEntry.dead(operation, operator, filter, rows));
    } else if (!ops.addAuditRows(tx, id, rows)) {
      throw new IllegalStateException(
          "audit row " + id + " of this " + operation.text() + " is gone; stopping");
    }
  }

  private void requireOperation(AuditOperation expected, DeadPage page) {
    Objects.requireNonNull(page, "page");
    if (operation != expected) {
      throw new IllegalStateException(
          "this run is a " + operation.text() + ", not a " + expected.text());
    }
    if (!page.filter().equals(filter)) {
      throw new IllegalArgumentException(
          "the page's filter " + page.filter() + " is not the run's " + filter);
    }
  }
}
