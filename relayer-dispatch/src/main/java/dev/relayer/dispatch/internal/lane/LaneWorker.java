package dev.relayer.dispatch.internal.lane;

import dev.relayer.dispatch.internal.DeliveryEngine;
import dev.relayer.dispatch.internal.LeaseTracker;
import dev.relayer.dispatch.internal.SendOutcome;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.Claim;
import dev.relayer.store.ClaimedMessage;
import dev.relayer.store.LaneClaim;
import dev.relayer.store.LeaseOutcome;
import dev.relayer.store.LeaseRequest;
import dev.relayer.store.RelayerStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass over one lane, under the lease {@code lane/<n>}, in one transaction on one connection:
 * lock the lease row (proceed only as its owner or once it expired), claim the heads of the lane's
 * keys, send them in key order, write the outcomes (delete, retry hold, park, give back) — and
 * while a claim was sent in full, claim the lane's next rows the same way, up to {@code
 * claimsPerPass} claims — then renew the lease and commit. A crash anywhere before the commit rolls
 * the claims and completions back; the broker may then have accepted rows that are sent again by
 * the next owner (at least once), never out of order. See the package documentation for the whole
 * protocol.
 */
public final class LaneWorker {

  /** Lease name prefix: lane {@code n} runs under {@code lane/n}. */
  public static final String LEASE_PREFIX = "lane/";

  private static final Logger log = LoggerFactory.getLogger(LaneWorker.class);

  private final DeliveryEngine engine;
  private final Settings settings;
  private final LeaseTracker leases;
  private final OrderedSender sender;

  /** What a pass needs besides the engine. */
  public record Settings(
      String owner,
      int keysPerPass,
      int rowsPerKey,
      int claimsPerPass,
      Duration claimDuration,
      Duration leaseDuration) {}

  /**
   * What a pass did.
   *
   * @param lane the lane
   * @param owner whether this instance held the lane's lease for the pass
   * @param claimed rows claimed
   * @param sent rows the broker accepted
   * @param failed rows whose send failed (retried later, or parked)
   * @param givenBack rows claimed but not sent, given back without spending an attempt
   * @param more whether another pass is likely to find work at once
   * @param dueIn after an idle pass: when the lane's earliest schedule or retry hold ends
   * @param nothingDueSince when the pass's last look at the lane (a claim, or the due-head check)
   *     found nothing due: the pass clock's reading just before that look was sent. Every commit
   *     whose notification had arrived by then was visible to it.
   */
  public record PassResult(
      int lane,
      boolean owner,
      int claimed,
      int sent,
      int failed,
      int givenBack,
      boolean more,
      Optional<Duration> dueIn,
      OptionalLong nothingDueSince) {

    static PassResult notOwner(int lane) {
      return new PassResult(lane, false, 0, 0, 0, 0, false, Optional.empty(), OptionalLong.empty());
    }
  }

  public LaneWorker(DeliveryEngine engine, Settings settings, LeaseTracker leases) {
    this.engine = engine;
    this.settings = settings;
    this.leases = leases;
    this.sender = new OrderedSender(engine);
  }

  /** The lease of {@code lane}. */
  public LeaseRequest lease(int lane) {
    return new LeaseRequest(LEASE_PREFIX + lane, settings.owner(), settings.leaseDuration());
  }

  /**
   * Runs one pass over {@code lane} on {@code dsl} (one transaction). With {@code renewOnly} the
   * pass only takes or renews the lease. After a claim sent in full, the pass claims again only
   * while {@code claimAgain} says so (and {@code claimsPerPass} allows). {@code clock}
   * (nanoseconds) times {@link PassResult#nothingDueSince}.
   */
  public PassResult pass(
      DSLContext dsl, int lane, boolean renewOnly, BooleanSupplier claimAgain, LongSupplier clock) {
    RelayerStore store = engine.store();
    LeaseRequest lease = lease(lane);
    Step step =
        dsl.transactionResult(
            tx -> {
              DSLContext t = tx.dsl();
              LeaseOutcome outcome = store.startLeasedPass(t, lease);
              if (!outcome.acquired()) {
                return new Step(PassResult.notOwner(lane), List.of());
              }
              if (renewOnly) {
                // Taking the lease has already restarted its expiry.
                return new Step(
                    new PassResult(
                        lane, true, 0, 0, 0, 0, false, Optional.empty(), OptionalLong.empty()),
                    List.of());
              }
              long look = clock.getAsLong();
              Claim claim = claim(t, lane);
              if (claim.isEmpty()) {
                Optional<Duration> dueIn = renewAndFindDueIn(t, lease, lane);
                return new Step(
                    new PassResult(lane, true, 0, 0, 0, 0, false, dueIn, OptionalLong.of(look)),
                    List.of());
              }
              Tally tally = sendClaims(t, lane, claim, claimAgain, clock);
              Optional<Duration> dueIn = Optional.empty();
              if (tally.more) {
                store.renewLease(t, lease);
              } else {
                dueIn = renewAndFindDueIn(t, lease, lane);
              }
              return new Step(
                  new PassResult(
                      lane,
                      true,
                      tally.claimed,
                      tally.sent,
                      tally.failed,
                      tally.givenBack,
                      tally.more,
                      dueIn,
                      tally.nothingDueSince),
                  tally.events);
            });
    leases.observe(lease.name(), settings.owner(), step.result().owner());
    engine.emit(step.events());
    PassResult result = step.result();
    if (result.claimed() > 0 && log.isDebugEnabled()) {
      log.debug(
          "store={} lane={} claimed={} sent={} failed={} givenBack={}",
          store.displayName(),
          lane,
          result.claimed(),
          result.sent(),
          result.failed(),
          result.givenBack());
    }
    return result;
  }

  /**
   * Sends {@code first}, writes its outcomes, and while a claim was sent in full claims the lane's
   * next rows in the same transaction, up to {@code claimsPerPass} claims and while {@code
   * claimAgain} says so.
   */
  private Tally sendClaims(
      DSLContext t, int lane, Claim first, BooleanSupplier claimAgain, LongSupplier clock) {
    RelayerStore store = engine.store();
    Tally tally = new Tally();
    Claim claim = first;
    for (int claims = 1; ; claims++) {
      SendOutcome sent = sender.send(claim, claim.expiresAt().minus(engine.sendTimeout()));
      tally.events.addAll(engine.complete(t, claim, sent, "lane"));
      List<Long> giveBack = sent.notAttempted().stream().map(ClaimedMessage::id).toList();
      store.unclaim(t, claim.token(), giveBack);
      tally.add(claim, sent, giveBack.size());
      tally.more = !sent.accepted().isEmpty() || !giveBack.isEmpty();
      boolean allSent = sent.accepted().size() == claim.messages().size();
      if (!allSent || claims == settings.claimsPerPass()) {
        return tally;
      }
      long look = clock.getAsLong();
      if (!claimAgain.getAsBoolean()) {
        // Other lanes wait for this thread: ask whether a next pass would find work rather than
        // assume that it would.
        tally.more = store.laneHasDueHead(t, lane, engine.clock().instant());
        tally.nothingDueSince = tally.more ? OptionalLong.empty() : OptionalLong.of(look);
        return tally;
      }
      // The lane's next rows, in this transaction: the sent rows are gone from its view.
      claim = claim(t, lane);
      if (claim.isEmpty()) {
        tally.more = false;
        tally.nothingDueSince = OptionalLong.of(look);
        return tally;
      }
    }
  }

  /** Claims the next rows of {@code lane}: heads, and their runs on batch-order transports. */
  private Claim claim(DSLContext t, int lane) {
    Set<String> batching = engine.batchOrderTransports();
    int followers = batching.isEmpty() ? 0 : settings.rowsPerKey() - 1;
    return engine
        .store()
        .claimLane(
            t,
            new LaneClaim(
                lane,
                settings.keysPerPass(),
                followers,
                batching,
                engine.clock().instant(),
                settings.claimDuration()));
  }

  /** What the claims of one pass did, summed. */
  private static final class Tally {
    int claimed;
    int sent;
    int failed;
    int givenBack;
    boolean more;
    OptionalLong nothingDueSince = OptionalLong.empty();
    final List<Consumer<RelayerEventListener>> events = new ArrayList<>();

    void add(Claim claim, SendOutcome outcome, int givenBack) {
      this.claimed += claim.messages().size();
      this.sent += outcome.accepted().size();
      this.failed += outcome.failed().size() + outcome.exhausted().size();
      this.givenBack += givenBack;
    }
  }

  /**
   * Renews the lane's lease and reads when its earliest schedule or retry hold ends, in one
   * statement.
   */
  private Optional<Duration> renewAndFindDueIn(DSLContext t, LeaseRequest lease, int lane) {
    Instant now = engine.clock().instant();
    return engine
        .store()
        .renewLeaseAndFindNextDue(t, lease, lane, now)
        .map(due -> Duration.between(now, due));
  }

  /** Gives the lane's lease up if this owner holds it; true if it did. */
  public boolean release(DSLContext dsl, int lane) {
    String name = LEASE_PREFIX + lane;
    boolean released = engine.store().releaseLease(dsl, name, settings.owner());
    leases.observe(name, settings.owner(), false);
    return released;
  }

  private record Step(PassResult result, List<Consumer<RelayerEventListener>> events) {}
}
