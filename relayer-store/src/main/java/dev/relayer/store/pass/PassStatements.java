package dev.relayer.store.pass;

import dev.relayer.store.Claim;
import dev.relayer.store.ClaimByIds;
import dev.relayer.store.ClaimPage;
import dev.relayer.store.DeadLetter;
import dev.relayer.store.FailedSend;
import dev.relayer.store.LaneClaim;
import dev.relayer.store.LeaseOutcome;
import dev.relayer.store.LeaseRequest;
import dev.relayer.store.PurgeBatch;
import dev.relayer.store.Purged;
import dev.relayer.store.SweepBounds;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * The statements of one {@link dev.relayer.store.RelayerStore} that the pass types run. The store
 * implements this and hands it to this package only ({@link StoreAccess}); nothing here checks an
 * order of steps: the pass types do. Public only because the store lives in another package.
 */
public interface PassStatements {

  List<LeaseOutcome> startLeasedPass(DSLContext tx, List<LeaseRequest> leases);

  void commitWithoutFlushWait(DSLContext tx);

  void commitWithFlushWait(DSLContext tx);

  Claim.Stamped claimByIds(DSLContext dsl, ClaimByIds request);

  Claim.Locked lockPage(DSLContext dsl, ClaimPage request);

  SweepBounds sweepBounds(DSLContext dsl, long floor);

  Claim.Stamped claimLane(DSLContext dsl, LaneClaim request);

  int unclaim(DSLContext dsl, UUID token, Collection<Long> ids);

  Set<Integer> lanesWithDueHead(DSLContext dsl, Set<Integer> lanes, Instant now);

  Map<Integer, Instant> renewLeasesAndFindNextDue(
      DSLContext dsl, List<LeaseRequest> leases, Set<Integer> lanes, Instant now);

  Claim.Stamped claimAlone(DSLContext dsl, ClaimByIds request);

  int markInFlight(DSLContext dsl, UUID token, Collection<Long> ids);

  boolean markSentAlone(DSLContext dsl, UUID token, long id);

  int deleteFenced(DSLContext dsl, UUID token, Collection<Long> ids);

  int deleteFencedWithoutFlushWait(DSLContext dsl, UUID token, Collection<Long> ids);

  int deleteLocked(DSLContext dsl, Claim.Locked claim, Collection<Long> ids);

  int stampLocked(DSLContext dsl, Claim.Locked claim, Collection<Long> ids);

  int recordFailures(DSLContext dsl, UUID token, List<FailedSend> failures);

  int moveToDead(DSLContext dsl, UUID token, DeadLetter letter);

  boolean park(DSLContext dsl, UUID token, long id, String error, Instant parkedAt);

  LeaseOutcome tryAcquireLease(DSLContext dsl, LeaseRequest request);

  boolean renewLease(DSLContext dsl, LeaseRequest request);

  boolean releaseLease(DSLContext dsl, String name, String owner);

  Purged purgeDead(DSLContext dsl, PurgeBatch batch);

  Purged purgeInbox(DSLContext dsl, PurgeBatch batch);

  void notifyLanes(DSLContext dsl, Set<Integer> lanes);

  long orderedRowsOutsideLanes(DSLContext dsl);
}
