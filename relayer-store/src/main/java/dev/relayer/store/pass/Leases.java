package dev.relayer.store.pass;

import org.jooq.DSLContext;

/**
 * Lease statements outside a pass: an instance's heartbeat and lane balancing take and renew
 * leases, and a graceful stop gives them up. Each runs in the caller's transaction.
 */
public final class Leases {

  private final PassSql sql;

  Leases(PassSql sql) {
    this.sql = sql;
  }

  /**
   * Takes {@code request.name()} in the caller's transaction when this owner holds it or it has
   * expired, keeping its row locked until the transaction ends; someone else holding it is a value.
   */
  public LeaseOutcome tryAcquire(DSLContext dsl, LeaseRequest request) {
    return sql.leases().tryAcquireLease(dsl, request);
  }

  /** Restarts the lease's expiry from the database's clock; false if the owner lost it. */
  public boolean renew(DSLContext dsl, LeaseRequest request) {
    return sql.leases().renewLease(dsl, request);
  }

  /** Gives a lease up (graceful stop); false if {@code owner} did not hold it. */
  public boolean release(DSLContext dsl, String name, String owner) {
    return sql.leases().releaseLease(dsl, name, owner);
  }
}
