package dev.relayer.store.pass;

import java.util.Optional;
import org.jooq.DSLContext;

/**
 * A retention batch of the cleanup run: it deletes dead rows, inbox records or idempotency keys
 * past their retention. Started with the {@code cleanup} lease ({@link Passes#cleanup}: the pass's
 * transaction settings and the lease in one statement, first; a batch without the lease throws), or
 * between two takes of the lease ({@link Passes#cleanupBetweenTakes}), where the lease taken less
 * than a quarter of its duration ago keeps other owners off without a statement of its own.
 */
public final class CleanupPass {

  private final PassSql sql;
  private final DSLContext dsl;
  private final Optional<LeaseOutcome> lease;

  CleanupPass(PassSql sql, DSLContext dsl, Optional<LeaseOutcome> lease) {
    this.sql = sql;
    this.dsl = dsl;
    this.lease = lease;
  }

  /** How the pass's start took the lease; empty for a batch between two takes. */
  public Optional<LeaseOutcome> lease() {
    return lease;
  }

  /** One retention batch of the dead table; see {@code RelayerStore}'s retention. */
  public Purged purgeDead(PurgeBatch batch) {
    checkLease("purgeDead");
    return sql.deadRetention().run(dsl, batch);
  }

  /** One retention batch of the inbox. */
  public Purged purgeInbox(PurgeBatch batch) {
    checkLease("purgeInbox");
    return sql.inboxRetention().run(dsl, batch);
  }

  /**
   * One retention batch of the idempotency keys (by {@code created_at}): a deleted key no longer
   * makes a later enqueue with it a duplicate.
   */
  public Purged purgeIdempotencyKeys(PurgeBatch batch) {
    checkLease("purgeIdempotencyKeys");
    return sql.keyRetention().run(dsl, batch);
  }

  private void checkLease(String step) {
    Passes.checkStep("cleanup pass", step, lease.map(LeaseOutcome::acquired).orElse(true), false);
  }
}
