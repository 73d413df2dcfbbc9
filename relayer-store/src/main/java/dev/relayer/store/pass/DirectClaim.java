package dev.relayer.store.pass;

import dev.relayer.store.Claim;
import dev.relayer.store.ClaimByIds;
import org.jooq.DSLContext;

/**
 * A transaction of a claim that commits before its send: direct dispatch's claim of the rows handed
 * to it after their commit, and the completion, in a transaction of its own, of any claim that was
 * committed before its send (direct dispatch's, and the careful steps of the sweeper and the
 * lanes). Its steps: the transaction's settings first ({@link Passes#direct}: its commit does not
 * wait for the WAL flush, since a lost completion only means a row sent again), then the claim
 * ({@link #claimByIds}), or the send's {@linkplain #complete completion} and the {@linkplain
 * #unclaim give-back} of rows the send did not attempt. A claim marks its rows in flight, and a
 * statement that marks rows makes the commit wait for the flush after all: a claim lost in a server
 * crash would leave a send that no attempt counts. No lease is held: the claim's token fences every
 * write.
 */
public final class DirectClaim extends ClaimTransaction {

  DirectClaim(PassStatements statements, DSLContext tx) {
    super(statements, tx);
    statements.commitWithoutFlushWait(tx);
  }

  /**
   * Claims the given unordered rows that are pending, due and not under a live claim, skipping rows
   * another transaction has locked.
   */
  public Claim.Stamped claimByIds(ClaimByIds request) {
    return statements.claimByIds(tx, request);
  }

  @Override
  void checkWritable(String step) {
    // Fenced by the claim's token alone.
  }
}
