package dev.relayer.store.pass;

import java.time.Instant;

/** The result of trying to take a lease for a pass. */
public sealed interface LeaseOutcome {

  /** Whether the caller now owns the lease and holds its row lock until the transaction ends. */
  default boolean acquired() {
    return this instanceof Acquired;
  }

  /**
   * Whether the caller took the lease over from another owner whose lease had expired — evidence
   * that the owner died (or stalled) in the middle of a pass, whose claims rolled back unseen.
   */
  default boolean takenOver() {
    return this instanceof Acquired acquired && acquired.how() == How.TAKEN_OVER;
  }

  /**
   * Whether the caller acquired the lease without already holding it: its row was created, or taken
   * from an owner whose lease expired. Until a transaction commits with the caller as owner, a
   * crash of the caller leaves no trace in the lease row.
   */
  default boolean newlyAcquired() {
    return this instanceof Acquired acquired && acquired.how() != How.KEPT;
  }

  /** How a lease was acquired. */
  enum How {
    /** The caller already held it. */
    KEPT,
    /** Its row did not exist (never taken, or released by its last owner). */
    CREATED,
    /** Another owner held it until it expired. */
    TAKEN_OVER
  }

  /**
   * The caller owns the lease; its row stays locked until the pass's transaction ends.
   *
   * @param expiresAt the lease's new expiry
   * @param how whether the caller kept, created or took over the lease
   */
  record Acquired(Instant expiresAt, How how) implements LeaseOutcome {}

  /** Another owner holds an unexpired lease. */
  record HeldByOther(String owner, Instant expiresAt) implements LeaseOutcome {}

  /** Another transaction is running a pass under this lease right now (its row is locked). */
  record Busy() implements LeaseOutcome {}
}
