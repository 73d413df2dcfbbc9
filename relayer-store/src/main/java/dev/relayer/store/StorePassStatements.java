package dev.relayer.store;

import dev.relayer.store.pass.PassStatements;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;

/** A store's side of {@link PassStatements}: each method is the store's own. */
final class StorePassStatements implements PassStatements {

  private final RelayerStore store;

  StorePassStatements(RelayerStore store) {
    this.store = store;
  }

  @Override
  public List<LeaseOutcome> startLeasedPass(DSLContext tx, List<LeaseRequest> leases) {
    return store.startLeasedPass(tx, leases);
  }

  @Override
  public void commitWithoutFlushWait(DSLContext tx) {
    store.commitWithoutFlushWait(tx);
  }

  @Override
  public void commitWithFlushWait(DSLContext tx) {
    store.commitWithFlushWait(tx);
  }

  @Override
  public Claim.Stamped claimByIds(DSLContext dsl, ClaimByIds request) {
    return store.claimByIds(dsl, request);
  }

  @Override
  public Claim.Locked lockPage(DSLContext dsl, ClaimPage request) {
    return store.lockPage(dsl, request);
  }

  @Override
  public SweepBounds sweepBounds(DSLContext dsl, long floor) {
    return store.sweepBounds(dsl, floor);
  }

  @Override
  public Claim.Stamped claimLane(DSLContext dsl, LaneClaim request) {
    return store.claimLane(dsl, request);
  }

  @Override
  public int unclaim(DSLContext dsl, UUID token, Collection<Long> ids) {
    return store.unclaim(dsl, token, ids);
  }

  @Override
  public Set<Integer> lanesWithDueHead(DSLContext dsl, Set<Integer> lanes, Instant now) {
    return store.lanesWithDueHead(dsl, lanes, now);
  }

  @Override
  public Map<Integer, Instant> renewLeasesAndFindNextDue(
      DSLContext dsl, List<LeaseRequest> leases, Set<Integer> lanes, Instant now) {
    return store.renewLeasesAndFindNextDue(dsl, leases, lanes, now);
  }

  @Override
  public Claim.Stamped claimAlone(DSLContext dsl, ClaimByIds request) {
    return store.claimAlone(dsl, request);
  }

  @Override
  public int markInFlight(DSLContext dsl, UUID token, Collection<Long> ids) {
    return store.markInFlight(dsl, token, ids);
  }

  @Override
  public boolean markSentAlone(DSLContext dsl, UUID token, long id) {
    return store.markSentAlone(dsl, token, id);
  }

  @Override
  public int deleteFenced(DSLContext dsl, UUID token, Collection<Long> ids) {
    return store.deleteFenced(dsl, token, ids);
  }

  @Override
  public int deleteFencedWithoutFlushWait(DSLContext dsl, UUID token, Collection<Long> ids) {
    return store.deleteFencedWithoutFlushWait(dsl, token, ids);
  }

  @Override
  public int deleteLocked(DSLContext dsl, Claim.Locked claim, Collection<Long> ids) {
    return store.deleteLocked(dsl, claim, ids);
  }

  @Override
  public int stampLocked(DSLContext dsl, Claim.Locked claim, Collection<Long> ids) {
    return store.stampLocked(dsl, claim, ids);
  }

  @Override
  public int recordFailures(DSLContext dsl, UUID token, List<FailedSend> failures) {
    return store.recordFailures(dsl, token, failures);
  }

  @Override
  public int moveToDead(DSLContext dsl, UUID token, DeadLetter letter) {
    return store.moveToDead(dsl, token, letter);
  }

  @Override
  public boolean park(DSLContext dsl, UUID token, long id, String error, Instant parkedAt) {
    return store.park(dsl, token, id, error, parkedAt);
  }

  @Override
  public LeaseOutcome tryAcquireLease(DSLContext dsl, LeaseRequest request) {
    return store.tryAcquireLease(dsl, request);
  }

  @Override
  public boolean renewLease(DSLContext dsl, LeaseRequest request) {
    return store.renewLease(dsl, request);
  }

  @Override
  public boolean releaseLease(DSLContext dsl, String name, String owner) {
    return store.releaseLease(dsl, name, owner);
  }

  @Override
  public Purged purgeDead(DSLContext dsl, PurgeBatch batch) {
    return store.purgeDead(dsl, batch);
  }

  @Override
  public Purged purgeInbox(DSLContext dsl, PurgeBatch batch) {
    return store.purgeInbox(dsl, batch);
  }

  @Override
  public void notifyLanes(DSLContext dsl, Set<Integer> lanes) {
    store.notifyLanes(dsl, lanes);
  }

  @Override
  public long orderedRowsOutsideLanes(DSLContext dsl) {
    return store.orderedRowsOutsideLanes(dsl);
  }
}
