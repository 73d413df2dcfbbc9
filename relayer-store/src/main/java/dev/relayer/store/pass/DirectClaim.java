package dev.relayer.store.pass;

import java.util.Collection;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * A transaction of a claim that commits before its send: direct dispatch's claim of the rows handed
 * to it after their commit, and the completion, in a transaction of its own, of any claim that was
 * committed before its send (direct dispatch's, and the careful steps of the sweeper and the
 * lanes). Its steps: the claim ({@link #claimByIds}), or the send's {@linkplain #complete
 * completion} and then the {@linkplain #unclaim give-back} of rows the send did not attempt.
 *
 * <p>The commit's wait for the WAL flush is set by the statements themselves, with no round trip of
 * its own. A claim marks its rows in flight, and that statement makes the commit wait for the
 * flush: a claim lost in a server crash would leave a send that no attempt counts. A completion's
 * commit does not wait, since a lost completion only means a row sent again: the delete of the sent
 * rows carries the setting, and a completion that sent nothing makes it in a statement of its own
 * before its first write. (A give-back alone, with no completion before it, commits with the
 * server's setting.) No lease is held: the claim's token fences every write.
 */
public final class DirectClaim extends ClaimTransaction {

  DirectClaim(PassSql sql, DSLContext tx) {
    super(sql, tx);
  }

  /**
   * Claims the given unordered rows that are pending, due and not under a live claim, skipping rows
   * another transaction has locked.
   */
  public Claim.Stamped claimByIds(ClaimByIds request) {
    return sql.outbox().claimByIds(tx, request);
  }

  @Override
  int deleteSent(UUID token, Collection<Long> ids) {
    if (ids.isEmpty()) {
      sql.commitWithoutFlushWait(tx);
      return 0;
    }
    return sql.outbox().deleteFencedWithoutFlushWait(tx, token, ids);
  }

  @Override
  void checkWritable(String step) {
    // Fenced by the claim's token alone.
  }
}
