package dev.relayer.store.pass;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.jooq.DSLContext;

/**
 * One sweep pass, in one transaction under the {@code sweeper} lease. Its steps, in their only
 * order:
 *
 * <ol>
 *   <li><b>Start</b> ({@link Passes#sweep}): the pass's transaction settings and the lease in one
 *       statement, before anything else; the lease row stays locked until the transaction ends, so
 *       no other owner runs a pass meanwhile. A pass that did not {@linkplain LeaseOutcome#acquired
 *       acquire} the lease can do nothing more: every step below throws.
 *   <li><b>Claim</b>: the traversal's bounds ({@link #bounds}), then the next page {@linkplain
 *       #lockPage locked} without a stamp, or a row {@linkplain #claimAlone claimed by id} with one
 *       (a suspect row sent alone, whose claim commits before its send).
 *   <li><b>Complete</b> ({@link #complete}): for a locked page, the stamp on every row not accepted
 *       comes first, then the fenced writes; or, for a page whose claim is to commit before its
 *       send (a pass that took the lease over), {@link #stamp} and {@link #markInFlight} instead.
 *   <li><b>End</b> ({@link #end}): the lease renewed, last; the pass takes no step after it.
 * </ol>
 *
 * <p>A pass that acquired the lease without holding it before ({@link LeaseOutcome#newlyAcquired})
 * commits that and claims in a next pass, so that the lease row names every owner that may die
 * sending.
 */
public final class SweepPass extends ClaimTransaction {

  private final LeaseRequest lease;
  private final LeaseOutcome outcome;
  private boolean ended;

  SweepPass(PassSql sql, DSLContext tx, LeaseRequest lease) {
    super(sql, tx);
    this.lease = Objects.requireNonNull(lease, "lease");
    this.outcome = sql.leases().startLeasedPass(tx, List.of(lease)).get(0);
    if (outcome.newlyAcquired()) {
      sql.commitWithFlushWait(tx);
    }
  }

  /** How the pass's start took the lease, or who holds it instead. */
  public LeaseOutcome lease() {
    return outcome;
  }

  /**
   * Where a traversal above {@code floor} starts and ends, and which writers could still add rows
   * below its start ({@link SweepBounds}).
   */
  public SweepBounds bounds(long floor) {
    checkWritable("bounds");
    return sql.outbox().sweepBounds(tx, floor);
  }

  /** Locks the next keyset page without stamping it; see {@code RelayerStore}'s locked claims. */
  public Claim.Locked lockPage(ClaimPage page) {
    checkWritable("lockPage");
    return sql.outbox().lockPage(tx, page);
  }

  /**
   * Claims one row by id, stamped and {@linkplain ClaimedMessage#SENT_ALONE marked sent alone}: for
   * a suspect row whose claim commits before it is sent alone.
   */
  public Claim.Stamped claimAlone(ClaimByIds request) {
    checkWritable("claimAlone");
    return sql.outbox().claimAlone(tx, request);
  }

  /**
   * Stamps rows of a locked page with its token, expiry and attempt, for a page whose claim commits
   * before its send; returns how many.
   */
  public int stamp(Claim.Locked page, Collection<Long> ids) {
    checkWritable("stamp");
    return sql.outbox().stampLocked(tx, page, ids);
  }

  /** Renews the lease: the last step of the pass. */
  public void end() {
    checkWritable("end");
    sql.leases().renewLease(tx, lease);
    ended = true;
  }

  @Override
  void checkWritable(String step) {
    Passes.checkStep("sweep pass", step, outcome.acquired(), ended);
  }
}
