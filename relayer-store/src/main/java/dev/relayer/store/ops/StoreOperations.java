package dev.relayer.store.ops;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.SchemaNames;
import dev.relayer.store.Lanes;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.store.internal.KeyLocks;
import dev.relayer.store.internal.StoreChecks;
import dev.relayer.store.internal.StoreDsl;
import dev.relayer.store.internal.StoreJdbc;
import dev.relayer.store.internal.TableChecks;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * An operator's reads and actions on parked keys and dead rows, and the audit trail. Every action
 * that changes rows writes its audit row itself, in the transaction of the change, naming the
 * operator: there is no way through this type to retry, release, dead-letter, replay or purge
 * without one. {@code RelayerOperator} (in {@code relayer-dispatch}) is the type to call: it adds
 * the transactions, the lanes' wake-ups and the logs.
 *
 * <p>Thread-safe; one per store.
 */
public final class StoreOperations {

  private final StoreOptions options;
  private final StoreDsl mapping;
  private final StoreJdbc jdbc;
  private final KeyLocks keyLocks;
  private final int advisoryNamespace;
  private final TableChecks tableChecks;

  private StoreOperations(StoreOptions options) {
    this.options = options;
    this.mapping = new StoreDsl(options.schema());
    this.jdbc = new StoreJdbc(mapping);
    this.keyLocks = new KeyLocks(jdbc);
    this.advisoryNamespace = Lanes.stableHash(mapping.names().qualified(SchemaNames.OUTBOX));
    this.tableChecks = new TableChecks(mapping.names());
  }

  /** The operations on the tables of {@code store}. */
  public static StoreOperations of(RelayerStore store) {
    return new StoreOperations(Objects.requireNonNull(store, "store").options());
  }

  // Parked keys

  /** Parked keys, in lane and key order; {@code lane} null for all lanes. */
  public List<ParkedKey> parkedKeys(DSLContext dsl, @Nullable Integer lane) {
    return ParkedKeyQueries.parkedKeys(mapping.map(dsl), lane, null);
  }

  /** The parked head of {@code key}, if the key is parked. */
  public Optional<ParkedKey> parkedKey(DSLContext dsl, String key) {
    StoreChecks.requireText("orderingKey", key);
    int lane = Lanes.laneOf(key, options.laneCount());
    return ParkedKeyQueries.parkedKeys(mapping.map(dsl), lane, key).stream().findFirst();
  }

  /**
   * Makes the parked head of {@code key} pending again with fresh attempts, and writes the audit
   * row naming {@code operator}, in the caller's transaction. Returns the head as it was parked;
   * empty (and nothing written) when the key is not parked.
   */
  public Optional<ParkedKey> retryHead(DSLContext tx, String operator, String key) {
    String by = NewAuditEntry.checkOperator(operator);
    tableChecks.beforeWrite(tx, SchemaNames.OUTBOX, SchemaNames.OPERATIONS);
    Optional<ParkedKey> parked = parkedKey(tx, key);
    if (parked.isEmpty() || ParkedKeyQueries.unpark(mapping.map(tx), null, key) != 1) {
      return Optional.empty();
    }
    audit(tx, NewAuditEntry.parkedKey(AuditOperation.PARKED_RETRY, by, key, 1));
    return parked;
  }

  /**
   * Moves the parked head of {@code key} to the dead table (reason {@code operator}, its last error
   * kept), so that the key goes on with its next row, and writes the audit row, in the caller's
   * transaction. Returns the head as it was parked; empty when the key is not parked.
   */
  public Optional<ParkedKey> moveHeadToDead(
      DSLContext tx, String operator, String key, Instant failedAt) {
    String by = NewAuditEntry.checkOperator(operator);
    StoreChecks.requireInstant("failedAt", failedAt);
    tableChecks.beforeWrite(
        tx, SchemaNames.OUTBOX, SchemaNames.OUTBOX_DEAD, SchemaNames.OPERATIONS);
    Optional<ParkedKey> parked = parkedKey(tx, key);
    if (parked.isEmpty()
        || OutboxDeadQueries.moveParked(
                mapping.map(tx), parked.get().headId(), "operator", failedAt)
            != 1) {
      return Optional.empty();
    }
    audit(tx, NewAuditEntry.parkedKey(AuditOperation.PARKED_SKIP, by, key, 1));
    return parked;
  }

  /**
   * Makes every parked head pending again, of one lane or ({@code lane} null) of the store, and
   * writes the audit row when any was, in the caller's transaction.
   */
  public Released release(DSLContext tx, String operator, @Nullable Integer lane) {
    String by = NewAuditEntry.checkOperator(operator);
    tableChecks.beforeWrite(tx, SchemaNames.OUTBOX, SchemaNames.OPERATIONS);
    List<ParkedKey> listed = parkedKeys(tx, lane);
    int count = ParkedKeyQueries.unpark(mapping.map(tx), lane, null);
    if (count > 0) {
      audit(tx, NewAuditEntry.release(by, lane, count));
    }
    return new Released(count, listed);
  }

  /**
   * What a {@link #release} did.
   *
   * @param count parked heads made pending
   * @param listed the parked keys just before (a key parked in between is counted, not listed)
   */
  public record Released(int count, List<ParkedKey> listed) {
    public Released {
      listed = List.copyOf(listed);
    }
  }

  // Dead rows

  /** The dead rows of {@code page}, in id order, without headers and bodies. */
  public List<DeadRowSummary> deadRows(DSLContext dsl, DeadPage page) {
    return DeadRowQueries.list(mapping.map(dsl), Objects.requireNonNull(page, "page"));
  }

  /**
   * The dead rows {@code filter} matches, grouped by error fingerprint: most rows first, then the
   * latest failure; at most {@code limit} groups (1 to {@link DeadPage#MAX_LIMIT}).
   */
  public List<DeadGroup> deadGroups(DSLContext dsl, DeadFilter filter, int limit) {
    Objects.requireNonNull(filter, "filter");
    checkLimit(limit);
    return DeadRowQueries.groups(mapping.map(dsl), filter, limit);
  }

  /** The dead row {@code id}, every column, if there is one. */
  public Optional<DeadRow> deadRow(DSLContext dsl, long id) {
    return DeadRowQueries.find(mapping.map(dsl), id);
  }

  /** How many dead rows {@code filter} matches. */
  public long deadCount(DSLContext dsl, DeadFilter filter) {
    return DeadRowQueries.countMatching(mapping.map(dsl), Objects.requireNonNull(filter, "filter"));
  }

  /** The highest id in the dead table: the fixed end of a replay or purge ({@link DeadPage}). */
  public OptionalLong highestDeadId(DSLContext dsl) {
    return DeadRowQueries.highestId(mapping.map(dsl));
  }

  /**
   * A replay of the dead rows {@code filter} matches by {@code operator}, run in batches ({@link
   * DeadRun#replay}); it writes one audit row for the whole run.
   */
  public DeadRun replayRun(String operator, DeadFilter filter) {
    return new DeadRun(this, AuditOperation.DEAD_REPLAY, operator, filter);
  }

  /**
   * A purge of the dead rows {@code filter} matches by {@code operator}, run in batches ({@link
   * DeadRun#purge}); it writes one audit row for the whole run.
   */
  public DeadRun purgeRun(String operator, DeadFilter filter) {
    return new DeadRun(this, AuditOperation.DEAD_PURGE, operator, filter);
  }

  // Audit trail

  /**
   * The newest {@code limit} (1 to {@link DeadPage#MAX_LIMIT}) audit rows, newest first; with
   * {@code since}, only rows whose action began at or after it.
   */
  public List<AuditEntry> auditEntries(DSLContext dsl, @Nullable Instant since, int limit) {
    checkLimit(limit);
    if (since != null) {
      StoreChecks.requireInstant("since", since);
    }
    return AuditQueries.newest(mapping.map(dsl), since, limit);
  }

  // For DeadRun

  StoreOptions options() {
    return options;
  }

  StoreDsl mapping() {
    return mapping;
  }

  StoreJdbc jdbc() {
    return jdbc;
  }

  TableChecks tableChecks() {
    return tableChecks;
  }

  void lockKeys(DSLContext tx, java.util.Collection<String> keys) {
    keyLocks.lock(tx, advisoryNamespace, keys);
  }

  long audit(DSLContext tx, NewAuditEntry entry) {
    return AuditQueries.insert(mapping.map(tx), entry);
  }

  boolean addAuditRows(DSLContext tx, long id, long rows) {
    return StoreChecks.atMost("addAuditRows", AuditQueries.addRows(mapping.map(tx), id, rows), 1)
        == 1;
  }

  private static void checkLimit(int limit) {
    if (limit < 1 || limit > DeadPage.MAX_LIMIT) {
      throw new InvalidInputException(
          "limit must be between 1 and " + DeadPage.MAX_LIMIT + ", was " + limit);
    }
  }
}
