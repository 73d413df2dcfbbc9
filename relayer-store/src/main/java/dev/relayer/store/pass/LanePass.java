package dev.relayer.store.pass;

import dev.relayer.api.InvalidInputException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;
import org.jooq.DSLContext;

/**
 * One lane pass, in one transaction under the leases of one or more lanes. Its steps, in their only
 * order:
 *
 * <ol>
 *   <li><b>Start</b> ({@link Passes#lanes}): the pass's transaction settings and every lane's lease
 *       in one statement, before anything else. The pass works only in the lanes whose lease it
 *       {@linkplain LeaseOutcome#acquired acquired}; a claim naming another lane throws.
 *   <li><b>Claim</b> ({@link #claim}): the heads of the lanes' keys, stamped; rows of keys it will
 *       not send now are {@linkplain #unclaim given back}.
 *   <li><b>Complete</b> ({@link #complete}) each claim's send, then give back the rows the send did
 *       not attempt; claim again while the lanes have more.
 *   <li><b>End</b>: the leases renewed, last — with the next due instant of the lanes that have
 *       nothing more to send ({@link #end(Set, Instant)}), or alone ({@link #end()}); the pass
 *       takes no step after it.
 * </ol>
 *
 * <p>A step whose claim is to commit before its send (a lane taken over from a dead owner, or a
 * head its last sender died sending) is a pass over that one lane that {@linkplain #markInFlight
 * marks} what it keeps and ends; its send is completed by a {@link DirectClaim}.
 */
public final class LanePass extends ClaimTransaction {

  private final List<Integer> lanes;
  private final List<LeaseRequest> leases;
  private final List<LeaseOutcome> outcomes;
  private final Set<Integer> owned = new TreeSet<>();
  private boolean ended;

  LanePass(PassSql sql, DSLContext tx, List<Integer> lanes, IntFunction<LeaseRequest> leaseOf) {
    super(sql, tx);
    this.lanes = List.copyOf(lanes);
    List<LeaseRequest> requests = new ArrayList<>(this.lanes.size());
    for (int lane : this.lanes) {
      requests.add(leaseOf.apply(lane));
    }
    this.leases = List.copyOf(requests);
    this.outcomes = sql.leases().startLeasedPass(tx, leases);
    boolean newOwner = false;
    for (int i = 0; i < this.lanes.size(); i++) {
      if (outcomes.get(i).acquired()) {
        owned.add(this.lanes.get(i));
      }
      newOwner |= outcomes.get(i).newlyAcquired();
    }
    if (newOwner) {
      sql.commitWithFlushWait(tx);
    }
  }

  /** How the pass's start took each lane's lease, in the order of the lanes it was given. */
  public List<LeaseOutcome> leases() {
    return outcomes;
  }

  /** Claims the next rows of lanes this pass owns; see {@link LaneClaim}. */
  public Claim.Stamped claim(LaneClaim request) {
    checkWritable("claim");
    requireOwned(request.lanes());
    return sql.lanes().claimLane(tx, request);
  }

  /** The lanes of {@code of} (owned by this pass) where a claim at {@code now} would find a row. */
  public Set<Integer> lanesWithDueHead(Set<Integer> of, Instant now) {
    checkWritable("lanesWithDueHead");
    requireOwned(of);
    return sql.lanes().lanesWithDueHead(tx, of, now);
  }

  /**
   * Ends the pass: renews the leases of the lanes it owns and returns, per lane of {@code idle}
   * (owned lanes with nothing more to send), the earliest instant after {@code now} when a row of
   * it stops being held by its schedule, a claim or a retry hold; one statement.
   */
  public Map<Integer, Instant> end(Set<Integer> idle, Instant now) {
    checkWritable("end");
    requireOwned(idle);
    Map<Integer, Instant> due = sql.lanes().renewLeasesAndFindNextDue(tx, ownedLeases(), idle, now);
    ended = true;
    return due;
  }

  /** Ends the pass: renews the leases of the lanes it owns. */
  public void end() {
    checkWritable("end");
    for (LeaseRequest lease : ownedLeases()) {
      sql.leases().renewLease(tx, lease);
    }
    ended = true;
  }

  private List<LeaseRequest> ownedLeases() {
    List<LeaseRequest> held = new ArrayList<>(owned.size());
    for (int i = 0; i < lanes.size(); i++) {
      if (owned.contains(lanes.get(i))) {
        held.add(leases.get(i));
      }
    }
    return held;
  }

  private void requireOwned(Set<Integer> of) {
    for (Integer lane : of) {
      if (!owned.contains(lane)) {
        throw new InvalidInputException(
            "lane pass: lane " + lane + " is not one whose lease this pass holds " + owned);
      }
    }
  }

  @Override
  void checkWritable(String step) {
    Passes.checkStep("lane pass", step, !owned.isEmpty(), ended);
  }
}
