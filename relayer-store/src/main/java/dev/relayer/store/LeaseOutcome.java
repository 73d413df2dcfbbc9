package dev.relayer.store;

import java.time.Instant;

/** The result of trying to take a lease for a pass. */
public sealed interface LeaseOutcome {

  /** Whether the caller now owns the lease and holds its row lock until the transaction ends. */
  default boolean acquired() {
    return this instanceof Acquired;
  }

  /** The caller owns the lease; its row stays locked until the pass's transaction ends. */
  record Acquired(Instant expiresAt) implements LeaseOutcome {}

  /** Another owner holds an unexpired lease. */
  record HeldByOther(String owner, Instant expiresAt) implements LeaseOutcome {}

  /** Another transaction is running a pass under this lease right now (its row is locked). */
  record Busy() implements LeaseOutcome {}
}
