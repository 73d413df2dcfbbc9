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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass over one or more lanes, under their leases {@code lane/<n>}, in one transaction on one
 * connection: lock the lease rows (proceed with a lane only as its owner or once its lease
 * expired), claim the heads of those lanes' keys in one statement, send them in key order, write
 * the outcomes (delete, retry hold, park, give back) — and while a claim was sent in full, claim
 * the next rows of the lanes that had some the same way, up to {@code claimsPerPass} claims — then
 * renew the leases and commit. A crash anywhere before the commit rolls the claims and completions
 * back; the broker may then have accepted rows that are sent again by the next owner (at least
 * once), never out of order. Serving several woken lanes in one pass costs about what serving one
 * does: the statements are the same, only their lane lists are longer. See the package
 * documentation for the whole protocol.
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
   * What a pass did in one lane.
   *
   * @param lane the lane
   * @param owner whether this instance held the lane's lease for the pass
   * @param claimed rows claimed
   * @param sent rows the broker accepted
   * @param failed rows whose send failed (retried later, or parked)
   * @param givenBack rows claimed but not sent, given back without spending an attempt
   * @param more whether another pass is likely to find work in the lane at once
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
      OptionalLong nothingDueSince) {}

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
   * Runs one pass over {@code lanes} (distinct) on {@code dsl}, in one transaction; returns what it
   * did in each, in the order of {@code lanes}. With {@code renewOnly} the pass only takes or
   * renews the leases. After a claim sent in full, the pass claims again only while {@code
   * claimAgain} says so (and {@code claimsPerPass} allows). {@code clock} (nanoseconds) times
   * {@link PassResult#nothingDueSince}.
   */
  public List<PassResult> pass(
      DSLContext dsl,
      List<Integer> lanes,
      boolean renewOnly,
      BooleanSupplier claimAgain,
      LongSupplier clock) {
    List<LeaseRequest> requests = lanes.stream().map(this::lease).toList();
    Map<Integer, LaneTally> tallies = new LinkedHashMap<>();
    List<Consumer<RelayerEventListener>> events = new ArrayList<>();
    dsl.transaction(
        tx -> {
          tallies.clear();
          events.clear();
          DSLContext t = tx.dsl();
          List<LeaseOutcome> outcomes = engine.store().startLeasedPass(t, requests);
          for (int i = 0; i < lanes.size(); i++) {
            tallies.put(lanes.get(i), new LaneTally(outcomes.get(i).acquired()));
          }
          List<Integer> owned = lanes.stream().filter(lane -> tallies.get(lane).owner).toList();
          if (!owned.isEmpty() && !renewOnly) {
            // Taking a lease has already restarted its expiry: a renew-only pass is done.
            new Pass(t, owned, tallies, events, claimAgain, clock).run();
          }
        });
    List<PassResult> results = new ArrayList<>(lanes.size());
    for (int i = 0; i < lanes.size(); i++) {
      int lane = lanes.get(i);
      LaneTally tally = tallies.get(lane);
      leases.observe(requests.get(i).name(), settings.owner(), tally.owner);
      results.add(tally.result(lane));
      if (tally.claimed > 0 && log.isDebugEnabled()) {
        log.debug(
            "store={} lane={} claimed={} sent={} failed={} givenBack={}",
            engine.store().displayName(),
            lane,
            tally.claimed,
            tally.sent,
            tally.failed,
            tally.givenBack);
      }
    }
    engine.emit(events);
    return results;
  }

  /** One pass's claims over the lanes it owns, in its transaction. */
  private final class Pass {
    private final DSLContext t;
    private final List<Integer> owned;
    private final Map<Integer, LaneTally> tallies;
    private final List<Consumer<RelayerEventListener>> events;
    private final BooleanSupplier claimAgain;
    private final LongSupplier clock;

    Pass(
        DSLContext t,
        List<Integer> owned,
        Map<Integer, LaneTally> tallies,
        List<Consumer<RelayerEventListener>> events,
        BooleanSupplier claimAgain,
        LongSupplier clock) {
      this.t = t;
      this.owned = owned;
      this.tallies = tallies;
      this.events = events;
      this.claimAgain = claimAgain;
      this.clock = clock;
    }

    /**
     * Claims the owned lanes' rows, sends them, writes the outcomes; while a claim was sent in
     * full, claims again the lanes that may have more, up to {@code claimsPerPass} claims and while
     * {@code claimAgain} says so. Ends by renewing the leases and reading when each lane that has
     * nothing more to send is next due.
     */
    void run() {
      RelayerStore store = engine.store();
      Set<Integer> active = new TreeSet<>(owned);
      for (int claims = 1; ; claims++) {
        long look = clock.getAsLong();
        int maxKeys = maxKeys(active);
        Claim claim = claim(active, maxKeys);
        Set<Integer> found = lanesOf(claim.messages());
        boolean cut = keysOf(claim.messages()) >= maxKeys;
        for (Integer lane : List.copyOf(active)) {
          if (found.contains(lane)) {
            continue;
          }
          if (cut) {
            // The key limit may have left this lane's heads out: look again.
            tallies.get(lane).more = true;
          } else {
            tallies.get(lane).nothingDue(look);
            active.remove(lane);
          }
        }
        if (claim.isEmpty()) {
          break;
        }
        SendOutcome sent = sender.send(claim, claim.expiresAt().minus(engine.sendTimeout()));
        events.addAll(engine.complete(t, claim, sent, "lane"));
        List<ClaimedMessage> notSent = sent.notAttempted();
        store.unclaim(t, claim.token(), notSent.stream().map(ClaimedMessage::id).toList());
        tally(claim, sent, found);
        boolean allSent = sent.accepted().size() == claim.messages().size();
        if (!allSent || claims == settings.claimsPerPass()) {
          break;
        }
        long lookAgain = clock.getAsLong();
        if (!claimAgain.getAsBoolean()) {
          // Other lanes wait for a thread: ask whether a next pass would find work rather than
          // assume that it would.
          Set<Integer> due = store.lanesWithDueHead(t, active, engine.clock().instant());
          for (Integer lane : active) {
            if (due.contains(lane)) {
              tallies.get(lane).more = true;
            } else {
              tallies.get(lane).nothingDue(lookAgain);
            }
          }
          break;
        }
      }
      Instant now = engine.clock().instant();
      Set<Integer> idle = new TreeSet<>();
      for (Integer lane : owned) {
        if (!tallies.get(lane).more) {
          idle.add(lane);
        }
      }
      List<LeaseRequest> held = owned.stream().map(LaneWorker.this::lease).toList();
      Map<Integer, Instant> due = store.renewLeasesAndFindNextDue(t, held, idle, now);
      due.forEach((lane, at) -> tallies.get(lane).dueIn = Duration.between(now, at));
    }

    /** Adds a sent claim's outcome to the tallies of {@code lanes}, the lanes of its rows. */
    private void tally(Claim claim, SendOutcome sent, Set<Integer> lanes) {
      for (Integer lane : lanes) {
        LaneTally tally = tallies.get(lane);
        tally.more = false;
        tally.nothingDueSince = OptionalLong.empty();
      }
      for (ClaimedMessage m : claim.messages()) {
        tallies.get(m.lane()).claimed++;
      }
      for (ClaimedMessage m : sent.accepted()) {
        LaneTally tally = tallies.get(m.lane());
        tally.sent++;
        tally.more = true;
      }
      for (SendOutcome.Failure f : sent.failed()) {
        tallies.get(f.message().lane()).failed++;
      }
      for (ClaimedMessage m : sent.exhausted()) {
        tallies.get(m.lane()).failed++;
      }
      for (ClaimedMessage m : sent.notAttempted()) {
        LaneTally tally = tallies.get(m.lane());
        tally.givenBack++;
        tally.more = true;
      }
    }

    /**
     * The keys a claim over {@code lanes} takes at most: {@code keysPerPass} per lane, so that a
     * claim over several lanes costs per message what one over a single lane does (choosing the
     * heads reads every pending row of the lanes).
     */
    private int maxKeys(Set<Integer> lanes) {
      return (int) Math.min(Integer.MAX_VALUE, (long) settings.keysPerPass() * lanes.size());
    }

    /** Claims the next rows of {@code lanes}: heads, and their runs on batch-order transports. */
    private Claim claim(Set<Integer> lanes, int maxKeys) {
      Set<String> batching = engine.batchOrderTransports();
      int followers = batching.isEmpty() ? 0 : settings.rowsPerKey() - 1;
      return engine
          .store()
          .claimLane(
              t,
              new LaneClaim(
                  lanes,
                  maxKeys,
                  followers,
                  batching,
                  engine.clock().instant(),
                  settings.claimDuration()));
    }
  }

  private static Set<Integer> lanesOf(List<ClaimedMessage> messages) {
    Set<Integer> lanes = new TreeSet<>();
    messages.forEach(m -> lanes.add(m.lane()));
    return lanes;
  }

  /** How many keys the rows belong to: a claim takes at most {@code keysPerPass}. */
  private static int keysOf(List<ClaimedMessage> messages) {
    Set<String> keys = new HashSet<>();
    messages.forEach(m -> keys.add(m.lane() + "/" + m.orderingKey()));
    return keys.size();
  }

  /** What a pass did in one lane, summed over its claims. */
  private static final class LaneTally {
    final boolean owner;
    int claimed;
    int sent;
    int failed;
    int givenBack;
    boolean more;
    Duration dueIn;
    OptionalLong nothingDueSince = OptionalLong.empty();

    LaneTally(boolean owner) {
      this.owner = owner;
    }

    void nothingDue(long look) {
      more = false;
      nothingDueSince = OptionalLong.of(look);
    }

    PassResult result(int lane) {
      return new PassResult(
          lane,
          owner,
          claimed,
          sent,
          failed,
          givenBack,
          more,
          Optional.ofNullable(dueIn),
          nothingDueSince);
    }
  }

  /** Gives the lane's lease up if this owner holds it; true if it did. */
  public boolean release(DSLContext dsl, int lane) {
    String name = LEASE_PREFIX + lane;
    boolean released = engine.store().releaseLease(dsl, name, settings.owner());
    leases.observe(name, settings.owner(), false);
    return released;
  }
}
