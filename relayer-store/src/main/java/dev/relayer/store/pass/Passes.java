package dev.relayer.store.pass;

import dev.relayer.store.RelayerStore;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;
import org.jooq.DSLContext;

/**
 * Where Relayer's background work starts its passes on one {@link RelayerStore}; see the package
 * documentation. Thread-safe; each pass it starts belongs to the transaction it was given.
 */
public final class Passes {

  private final RelayerStore store;
  private final PassSql sql;
  private final Leases leases;

  private Passes(RelayerStore store, PassSql sql) {
    this.store = store;
    this.sql = sql;
    this.leases = new Leases(sql);
  }

  /** The passes of {@code store}. */
  public static Passes of(RelayerStore store) {
    return new Passes(Objects.requireNonNull(store, "store"), PassSql.of(store.options()));
  }

  /** The store the passes run on. */
  public RelayerStore store() {
    return store;
  }

  /** Starts a sweep pass in {@code tx}, taking {@code lease} first. */
  public SweepPass sweep(DSLContext tx, LeaseRequest lease) {
    return new SweepPass(sql, tx, lease);
  }

  /**
   * Starts a lane pass over {@code lanes} (distinct) in {@code tx}, taking each lane's lease
   * ({@code leaseOf}: one owner and duration, distinct names) first, in one statement.
   */
  public LanePass lanes(DSLContext tx, List<Integer> lanes, IntFunction<LeaseRequest> leaseOf) {
    return new LanePass(sql, tx, lanes, leaseOf);
  }

  /** Starts a transaction of a claim that commits before its send, in {@code tx}. */
  public DirectClaim direct(DSLContext tx) {
    return new DirectClaim(sql, tx);
  }

  /** Starts a cleanup batch in {@code tx}, taking {@code lease} first. */
  public CleanupPass cleanup(DSLContext tx, LeaseRequest lease) {
    LeaseOutcome outcome = sql.leases().startLeasedPass(tx, List.of(lease)).get(0);
    return new CleanupPass(sql, tx, Optional.of(outcome));
  }

  /**
   * A cleanup batch on {@code dsl} between two takes of the lease by its run: the caller took the
   * lease less than a quarter of its duration ago.
   */
  public CleanupPass cleanupBetweenTakes(DSLContext dsl) {
    return new CleanupPass(sql, dsl, Optional.empty());
  }

  /** Lease statements outside a pass. */
  public Leases leases() {
    return leases;
  }

  /**
   * Notifies the owners of {@code lanes} on the store's {@linkplain RelayerStore#laneChannel()
   * channel}, in the caller's transaction: call it from a short transaction of Relayer's own, never
   * the application's (a committing transaction that notified takes a database-wide lock).
   */
  public void notifyLanes(DSLContext dsl, Set<Integer> lanes) {
    sql.lanes().notifyLanes(dsl, lanes);
  }

  /**
   * A notification round as the whole of the transaction {@code tx}: its commit does not wait for
   * the WAL flush (it holds PostgreSQL's notification lock only for the commit itself, and a crash
   * that loses it loses a wake-up, which polling covers), then {@link #notifyLanes}.
   */
  public void notifyLanesWithoutFlushWait(DSLContext tx, Set<Integer> lanes) {
    sql.commitWithoutFlushWait(tx);
    sql.lanes().notifyLanes(tx, lanes);
  }

  /**
   * Ordered rows in lanes at or above the store's lane count: written by an instance configured
   * with more lanes, and sent by no lane owner of this configuration.
   */
  public long orderedRowsOutsideLanes(DSLContext dsl) {
    return sql.lanes().orderedRowsOutsideLanes(dsl);
  }

  /** Throws {@link IllegalStateException} for a step a pass may not take now. */
  static void checkStep(String pass, String step, boolean leaseHeld, boolean ended) {
    if (!leaseHeld) {
      throw new IllegalStateException(
          pass + ": " + step + " without the lease: the pass's start did not acquire it");
    }
    if (ended) {
      throw new IllegalStateException(
          pass + ": " + step + " after the pass ended: renewing the lease is its last step");
    }
  }
}
