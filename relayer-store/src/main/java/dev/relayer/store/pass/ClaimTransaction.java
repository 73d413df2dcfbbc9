package dev.relayer.store.pass;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * A transaction that writes to claimed rows: one of the passes that claim and complete in one
 * transaction ({@link SweepPass}, {@link LanePass}), or the transaction of its own that completes a
 * claim committed before its send ({@link DirectClaim}).
 */
public abstract sealed class ClaimTransaction permits SweepPass, LanePass, DirectClaim {

  final PassSql sql;
  final DSLContext tx;

  ClaimTransaction(PassSql sql, DSLContext tx) {
    this.sql = sql;
    this.tx = tx;
  }

  /** Throws {@link IllegalStateException} when this transaction may not write to claims now. */
  abstract void checkWritable(String step);

  /** Deletes the sent rows {@code ids} of a stamped claim still under {@code token}. */
  int deleteSent(UUID token, Collection<Long> ids) {
    return sql.outbox().deleteFenced(tx, token, ids);
  }

  /**
   * Writes a send's outcome under the claim's token, in this order: for a {@linkplain Claim.Locked
   * locked} claim, the stamp on every row not accepted (so that the token-fenced writes below find
   * them as they would a stamped claim's); the delete of the accepted rows; each burial (a park, or
   * a move to the dead table); the failures to retry. Returns what was written.
   */
  public final Completion.Written complete(Claim claim, Completion completion) {
    checkWritable("complete");
    UUID token = claim.token();
    int deleted;
    if (claim instanceof Claim.Locked locked) {
      Set<Long> accepted = new HashSet<>(completion.accepted());
      List<Long> unsent = new ArrayList<>();
      for (ClaimedMessage m : locked.messages()) {
        if (!accepted.contains(m.id())) {
          unsent.add(m.id());
        }
      }
      sql.outbox().stampLocked(tx, locked, unsent);
      deleted = sql.outbox().deleteLocked(tx, locked, completion.accepted());
    } else {
      deleted = deleteSent(token, completion.accepted());
    }
    List<Completion.Burial> parked = new ArrayList<>();
    List<Completion.Burial> dead = new ArrayList<>();
    for (Completion.Burial burial : completion.buried()) {
      ClaimedMessage m = burial.message();
      if (burial.parks()) {
        if (sql.lanes().park(tx, token, m.id(), burial.error(), completion.at())) {
          parked.add(burial);
        }
      } else if (sql.outbox()
              .moveToDead(
                  tx,
                  token,
                  new DeadLetter(List.of(m.id()), burial.reason(), burial.error(), completion.at()))
          == 1) {
        dead.add(burial);
      }
    }
    sql.outbox().recordFailures(tx, token, completion.retries());
    return new Completion.Written(deleted, parked, dead);
  }

  /**
   * Marks rows still under {@code token} {@linkplain ClaimedMessage#IN_FLIGHT in flight with
   * others}, for a claim that commits before its send; returns how many were marked. The
   * transaction's commit then waits for the WAL flush, whatever the pass set before, so that the
   * claim's attempts outlive a server crash after the send.
   */
  public final int markInFlight(UUID token, Collection<Long> ids) {
    checkWritable("markInFlight");
    return sql.outbox().markInFlight(tx, token, ids);
  }

  /**
   * Marks the row {@code id} still under {@code token} {@linkplain ClaimedMessage#SENT_ALONE sent
   * alone}, for a claim of that row alone that commits before its send, giving back this claim's
   * attempt when the row was in flight with others before ({@link
   * ClaimedMessage#attemptsWhenSentAlone}); false when the row is no longer under the token. The
   * commit waits for the WAL flush, as {@link #markInFlight}.
   */
  public final boolean markSentAlone(UUID token, long id) {
    checkWritable("markSentAlone");
    return sql.outbox().markSentAlone(tx, token, id);
  }

  /**
   * Gives rows claimed under {@code token} back as if never claimed (the claim cleared, its attempt
   * refunded): for rows a lane claimed and did not send. Returns how many were still held.
   */
  public final int unclaim(UUID token, Collection<Long> ids) {
    checkWritable("unclaim");
    return sql.lanes().unclaim(tx, token, ids);
  }
}
