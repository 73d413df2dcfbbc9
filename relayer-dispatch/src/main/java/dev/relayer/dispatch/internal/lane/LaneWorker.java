package dev.relayer.dispatch.internal.lane;

import dev.relayer.dispatch.LaneOptions;
import dev.relayer.dispatch.internal.Delivery;
import dev.relayer.dispatch.internal.Events;
import dev.relayer.dispatch.internal.LeaseTracker;
import dev.relayer.dispatch.internal.OutcomeWriter;
import dev.relayer.dispatch.internal.SendGate;
import dev.relayer.dispatch.internal.SendOutcome;
import dev.relayer.dispatch.spi.DeliveryComponent;
import dev.relayer.dispatch.spi.PassKind;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.DirectClaim;
import dev.relayer.store.pass.LaneClaim;
import dev.relayer.store.pass.LanePass;
import dev.relayer.store.pass.LeaseOutcome;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Passes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
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

  private final String store;
  private final Passes passes;
  private final Clock clock;
  private final Events events;
  private final Set<String> transportNames;
  private final OutcomeWriter outcomes;
  private final Settings settings;
  private final LeaseTracker leases;
  private final OrderedSender sender;

  /**
   * Lanes taken over from an owner that stopped renewing, with how many careful steps each has
   * left: that owner may have died sending any of its pass's claims, so as many steps as a pass
   * makes claims commit their claim before the send.
   */
  private final Map<Integer, Integer> careful = new ConcurrentHashMap<>();

  /**
   * What a pass claims and how long it holds.
   *
   * @param owner this instance's identity in the lane leases
   * @param keysPerPass keys a claim takes per lane, at most
   * @param rowsPerKey rows a claim takes per key, at most
   * @param claimsPerPass claims a pass makes, at most
   * @param claimDuration how long a claim holds
   * @param leaseDuration how long a lane lease holds
   */
  public record Settings(
      String owner,
      int keysPerPass,
      int rowsPerKey,
      int claimsPerPass,
      Duration claimDuration,
      Duration leaseDuration) {

    /** The settings {@code options} name, for {@code owner}, claiming for {@code claimDuration}. */
    public static Settings of(String owner, LaneOptions options, Duration claimDuration) {
      return new Settings(
          owner,
          options.keysPerPass(),
          options.rowsPerKey(),
          options.claimsPerPass(),
          claimDuration,
          options.leaseDuration());
    }
  }

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

  /** A lane worker over {@code delivery}'s parts, reporting its leases to {@code leases}. */
  public LaneWorker(Delivery delivery, Settings settings, LeaseTracker leases) {
    this.store = delivery.store();
    this.passes = delivery.passes();
    this.clock = delivery.clock();
    this.events = delivery.events();
    this.transportNames = delivery.sender().transportNames();
    this.outcomes = delivery.outcomes();
    this.settings = settings;
    this.leases = leases;
    this.sender = new OrderedSender(delivery.sender());
  }

  /** The lease of {@code lane}. */
  public LeaseRequest lease(int lane) {
    return new LeaseRequest(LEASE_PREFIX + lane, settings.owner(), settings.leaseDuration());
  }

  /**
   * How a pass paces itself beside the other lanes' passes.
   *
   * @param claimAgain after a claim sent in full, the pass claims again only while this says so
   *     (and {@code claimsPerPass} allows)
   * @param nanoClock the clock, in nanoseconds, that times {@link PassResult#nothingDueSince}
   */
  public record Pace(BooleanSupplier claimAgain, LongSupplier nanoClock) {

    /** A pass that runs alone: it claims again while {@code claimsPerPass} allows. */
    public static Pace alone() {
      return new Pace(() -> true, System::nanoTime);
    }
  }

  /** What a pass does in the lanes whose lease it holds. */
  private enum Mode {
    /** Takes or renews the leases, and nothing more. */
    RENEW,
    /** Claims, sends and completes. */
    DELIVER
  }

  /**
   * Runs one pass over {@code lanes} (distinct) on {@code dsl}, in one transaction: takes or renews
   * their leases, then claims, sends and completes in the lanes it holds, paced by {@code pace}.
   * Returns what it did in each, in the order of {@code lanes}.
   */
  public List<PassResult> pass(DSLContext dsl, List<Integer> lanes, Pace pace) {
    return run(dsl, lanes, Mode.DELIVER, pace);
  }

  /**
   * Takes or renews the leases of {@code lanes} (distinct) on {@code dsl}, in one transaction, and
   * claims nothing; not reported as a pass. Returns which leases it holds, in the order of {@code
   * lanes}.
   */
  public List<PassResult> renew(DSLContext dsl, List<Integer> lanes) {
    // A renewal claims nothing: its pace is never asked.
    return run(dsl, lanes, Mode.RENEW, Pace.alone());
  }

  private List<PassResult> run(DSLContext dsl, List<Integer> lanes, Mode mode, Pace pace) {
    long started = mode == Mode.RENEW ? Events.NOT_TIMED : events.passStarted();
    Pass first = new Pass(pace);
    dsl.transaction(tx -> first.run(tx.dsl(), lanes, mode));
    Pass pass = first;
    if (first.newlyAcquired && mode == Mode.DELIVER) {
      // The lease rows now name this owner: a crash from here on leaves leases that expire under
      // its name, which the next owner sees.
      Pass second = new Pass(pace);
      dsl.transaction(tx -> second.run(tx.dsl(), lanes, Mode.DELIVER));
      pass = second;
    }
    events.emitAll(pass.collected);
    pass.collected.clear();
    for (int lane : lanes) {
      LaneTally tally = pass.tally(lane);
      if (mode == Mode.DELIVER && tally.owner && (careful.containsKey(lane) || tally.suspects)) {
        carefulSteps(dsl, lane, tally, pass.collected);
      }
    }
    List<PassResult> results = new ArrayList<>(lanes.size());
    for (int lane : lanes) {
      LaneTally tally = pass.tally(lane);
      leases.observe(lease(lane).name(), settings.owner(), tally.owner);
      results.add(tally.result(lane));
      if (tally.claimed > 0 && log.isDebugEnabled()) {
        log.debug(
            "store={} lane={} claimed={} sent={} failed={} givenBack={}",
            store,
            lane,
            tally.claimed,
            tally.sent,
            tally.failed,
            tally.givenBack);
      }
    }
    events.emitAll(pass.collected);
    events.passFinished(PassKind.LANE, started);
    return results;
  }

  /** One pass: what it did per lane, and the events to emit once it committed. */
  private final class Pass {
    private final Pace pace;
    private final Map<Integer, LaneTally> tallies = new LinkedHashMap<>();
    private final List<Consumer<RelayerEventListener>> collected = new ArrayList<>();

    /** The tally of a lane of this pass; every lane the pass was given has one. */
    LaneTally tally(@Nullable Integer lane) {
      return Objects.requireNonNull(tallies.get(lane));
    }

    /** Whether a lease of the pass was created or taken over: it claims nothing then. */
    private boolean newlyAcquired;

    Pass(Pace pace) {
      this.pace = pace;
    }

    /**
     * In the pass's transaction {@code t}: takes the leases of {@code lanes}, then, to {@link
     * Mode#DELIVER}, claims and sends in the lanes whose lease it took.
     */
    void run(DSLContext t, List<Integer> lanes, Mode mode) {
      LanePass pass = passes.lanes(t, lanes, LaneWorker.this::lease);
      List<LeaseOutcome> outcomes = pass.leases();
      for (int i = 0; i < lanes.size(); i++) {
        int lane = lanes.get(i);
        LeaseOutcome outcome = outcomes.get(i);
        tallies.put(lane, new LaneTally(outcome.acquired()));
        newlyAcquired |= outcome.newlyAcquired();
        if (leases.inherited(lease(lane).name(), outcome)) {
          log.warn(
              "store={} lane={} lease taken over from {}; the next {} claims commit before their"
                  + " send",
              store,
              lane,
              outcome.takenOver()
                  ? "an owner whose lease expired"
                  : "an earlier process under this owner name",
              settings.claimsPerPass());
          careful.put(lane, settings.claimsPerPass());
        }
      }
      List<Integer> owned =
          lanes.stream().filter(lane -> tally(lane).owner && !careful.containsKey(lane)).toList();
      if (!owned.isEmpty() && mode == Mode.DELIVER && !newlyAcquired) {
        // Taking a lease has already restarted its expiry: a renew-only pass is done.
        claimAndSend(pass, owned);
      }
    }

    /**
     * Claims the owned lanes' rows, sends them, writes the outcomes; while a claim was sent in
     * full, claims again the lanes that may have more, up to {@code claimsPerPass} claims and while
     * the pace {@linkplain Pace#claimAgain() says so}. Ends by renewing the leases and reading when
     * each lane that has nothing more to send is next due.
     */
    private void claimAndSend(LanePass pass, List<Integer> owned) {
      Set<Integer> active = new TreeSet<>(owned);
      for (int claims = 1; ; claims++) {
        long look = pace.nanoClock().getAsLong();
        int maxKeys = maxKeys(active);
        Claim.Stamped claim = claim(pass, active, maxKeys);
        Map<Integer, Set<String>> keys = keysByLane(claim.messages());
        boolean cut = keys.values().stream().mapToInt(Set::size).sum() >= maxKeys;
        for (Integer lane : List.copyOf(active)) {
          if (keys.containsKey(lane)) {
            continue;
          }
          if (cut) {
            // The key limit may have left this lane's heads out: look again.
            tally(lane).more = true;
          } else {
            tally(lane).nothingDue(look);
            active.remove(lane);
          }
        }
        if (claim.isEmpty()) {
          break;
        }
        claim = withoutSuspects(pass, claim, active);
        if (claim.isEmpty()) {
          break;
        }
        SendOutcome sent = sender.send(claim);
        collected.addAll(outcomes.complete(pass, claim, sent, DeliveryComponent.LANE));
        pass.unclaim(claim.token(), sent.notAttempted().stream().map(ClaimedMessage::id).toList());
        tally(claim, sent, keys.keySet());
        boolean allSent = sent.accepted().size() == claim.messages().size();
        if (!allSent || claims == settings.claimsPerPass() || active.isEmpty()) {
          // An empty active set: every lane of the pass met a head left in flight, which the
          // careful steps after the commit send alone; claiming again would name no lane.
          break;
        }
        long lookAgain = pace.nanoClock().getAsLong();
        if (!pace.claimAgain().getAsBoolean()) {
          // Other lanes wait for a thread: ask whether a next pass would find work rather than
          // assume that it would.
          Set<Integer> due = pass.lanesWithDueHead(active, clock.instant());
          for (Integer lane : active) {
            if (due.contains(lane)) {
              tally(lane).more = true;
            } else {
              tally(lane).nothingDue(lookAgain);
            }
          }
          break;
        }
      }
      Instant now = clock.instant();
      Set<Integer> idle = new TreeSet<>();
      for (Integer lane : owned) {
        if (!tally(lane).more) {
          idle.add(lane);
        }
      }
      Map<Integer, Instant> due = pass.end(idle, now);
      due.forEach((lane, at) -> tally(lane).dueIn = Duration.between(now, at));
    }

    /**
     * Gives back, in the pass transaction, the keys of {@code claim} whose head was marked in
     * flight (its sender stopped during the send) so that they are not sent with others; their
     * lanes get careful steps after the commit, and leave {@code active}.
     */
    private Claim.Stamped withoutSuspects(LanePass pass, Claim.Stamped claim, Set<Integer> active) {
      Set<String> suspectKeys = new HashSet<>();
      Set<String> seen = new HashSet<>();
      for (ClaimedMessage m : claim.messages()) {
        if (seen.add(m.orderingKey()) && m.wasInFlight()) {
          suspectKeys.add(m.orderingKey());
        }
      }
      if (suspectKeys.isEmpty()) {
        return claim;
      }
      List<Long> givenBack = new ArrayList<>();
      List<ClaimedMessage> kept = new ArrayList<>();
      for (ClaimedMessage m : claim.messages()) {
        if (suspectKeys.contains(m.orderingKey())) {
          givenBack.add(m.id());
          tally(m.lane()).suspects = true;
          active.remove(m.lane());
        } else {
          kept.add(m);
        }
      }
      pass.unclaim(claim.token(), givenBack);
      return new Claim.Stamped(claim.token(), claim.expiresAt(), kept);
    }

    /** Adds a sent claim's outcome to the tallies of {@code lanes}, the lanes of its rows. */
    private void tally(Claim claim, SendOutcome sent, Set<Integer> lanes) {
      for (Integer lane : lanes) {
        LaneTally tally = tally(lane);
        tally.more = false;
        tally.nothingDueSince = OptionalLong.empty();
      }
      for (ClaimedMessage m : claim.messages()) {
        tally(m.lane()).claimed++;
      }
      for (ClaimedMessage m : sent.accepted()) {
        LaneTally tally = tally(m.lane());
        tally.sent++;
        tally.more = true;
      }
      for (SendOutcome.Failure f : sent.failed()) {
        tally(f.message().lane()).failed++;
      }
      for (ClaimedMessage m : sent.exhausted()) {
        tally(m.lane()).failed++;
      }
      for (ClaimedMessage m : sent.notAttempted()) {
        LaneTally tally = tally(m.lane());
        tally.givenBack++;
        tally.more = true;
      }
    }

    /**
     * The keys a claim over {@code lanes} takes at most: {@code keysPerPass} per lane, so that a
     * claim over several lanes serves each as a claim of its own would.
     */
    private int maxKeys(Set<Integer> lanes) {
      return (int) Math.min(Integer.MAX_VALUE, (long) settings.keysPerPass() * lanes.size());
    }

    /**
     * Claims the next rows of {@code lanes}: per key, its head and the rows after it, a run that
     * {@link OrderedSender} sends in one batch on a batch-order transport and row after row (each
     * once the previous one was accepted) elsewhere.
     */
    private Claim.Stamped claim(LanePass pass, Set<Integer> lanes, int maxKeys) {
      int followers = settings.rowsPerKey() - 1;
      return pass.claim(
          new LaneClaim(
              lanes,
              maxKeys,
              followers,
              transportNames,
              clock.instant(),
              settings.claimDuration(),
              settings.keysPerPass()));
    }
  }

  /**
   * The ordering keys of {@code messages}, by lane: the lanes a claim found rows in, and how many
   * keys.
   */
  private static Map<Integer, Set<String>> keysByLane(List<ClaimedMessage> messages) {
    Map<Integer, Set<String>> keys = new HashMap<>();
    messages.forEach(
        m -> keys.computeIfAbsent(m.lane(), lane -> new HashSet<>()).add(m.orderingKey()));
    return keys;
  }

  /** What a pass did in one lane, summed over its claims. */
  private static final class LaneTally {
    final boolean owner;
    int claimed;
    int sent;
    int failed;
    int givenBack;
    boolean more;
    @Nullable Duration dueIn;
    OptionalLong nothingDueSince = OptionalLong.empty();
    boolean suspects;

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

  /**
   * Steps whose claims commit before their send, for {@code lane} after its pass transaction: in a
   * careful lane (taken over), the heads that are not suspect as one group per step, marked in
   * flight with others; then, one at a time, the suspect heads (marked in flight), fewest attempts
   * first, each marked sent alone and sent while the process sends nothing else ({@link
   * SendGate#alone()}). Each step claims the lane's heads under its lease, keeps the ones it sends,
   * gives the rest back, commits, sends and completes in a transaction of its own. A crash in a
   * group step leaves its rows suspect and costs none of them an attempt; a crash while a head is
   * sent alone costs that head one; a head out of attempts is parked unsent.
   */
  // The send gate is held for its effect alone (see SendGate).
  @SuppressWarnings("try")
  private void carefulSteps(
      DSLContext dsl, int lane, LaneTally tally, List<Consumer<RelayerEventListener>> collected) {
    // At most the careful lane's group steps plus one step per head a claim can hold; heads still
    // marked after that are found again by the lane's next pass.
    for (int i = 0; i < settings.claimsPerPass() + settings.keysPerPass(); i++) {
      CarefulStep step = careful.containsKey(lane) ? CarefulStep.GROUP : CarefulStep.ALONE;
      Claim.Stamped claim;
      SendOutcome sent;
      // A suspect head's claim, send and completion hold the process's sends up.
      try (SendGate.Hold gate = step == CarefulStep.GROUP ? null : SendGate.PROCESS.alone()) {
        CarefulClaim taken = dsl.transactionResult(tx -> carefulClaim(tx.dsl(), lane, step));
        boolean headsLeft = taken != null && taken.headsLeft();
        if (taken != null && taken.claim().isEmpty() && step == CarefulStep.GROUP && headsLeft) {
          // No head left but suspect ones: those go alone, in the next steps.
          careful.remove(lane);
          continue;
        }
        if (taken == null || taken.claim().isEmpty()) {
          // Nothing left to send carefully: the lane's other heads, if any, go in its next pass.
          careful.remove(lane);
          tally.more = headsLeft;
          return;
        }
        claim = taken.claim();
        Claim.Stamped claimed = claim;
        sent = sender.send(claimed);
        collected.addAll(
            dsl.transactionResult(
                tx -> {
                  DirectClaim completion = passes.direct(tx.dsl());
                  List<Consumer<RelayerEventListener>> done =
                      outcomes.complete(completion, claimed, sent, DeliveryComponent.LANE);
                  completion.unclaim(
                      claimed.token(),
                      sent.notAttempted().stream().map(ClaimedMessage::id).toList());
                  return done;
                }));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return; // shutting down: the suspect heads wait for the lane's next owner
      }
      tally.claimed += claim.messages().size();
      tally.sent += sent.accepted().size();
      tally.failed += sent.failed().size() + sent.exhausted().size();
      tally.givenBack += sent.notAttempted().size();
      tally.more = true;
      tally.nothingDueSince = OptionalLong.empty();
      if (step == CarefulStep.GROUP
          && careful.computeIfPresent(lane, (l, left) -> left > 1 ? left - 1 : null) == null) {
        log.info(
            "store={} lane={} careful claims done; the lane's passes send in batches again",
            store,
            lane);
      }
    }
  }

  /** What a careful step sends. */
  private enum CarefulStep {
    /** The heads not marked in flight, together, marked in flight with others. */
    GROUP,
    /** One head marked in flight, marked sent alone, while the process sends nothing else. */
    ALONE
  }

  /**
   * A careful step's claim, and whether the step gave heads back (heads it did not choose).
   *
   * @param claim the heads to send, empty when the step chose none
   */
  private record CarefulClaim(Claim.Stamped claim, boolean headsLeft) {}

  /**
   * A careful step's claim, in its own transaction {@code t}: the lane's heads under its lease,
   * those {@link #chooseCarefully} does not choose given back, the chosen ones marked (in flight
   * with others in a group step, sent alone otherwise). {@code null} when the lease is gone.
   */
  private @Nullable CarefulClaim carefulClaim(DSLContext t, int lane, CarefulStep step) {
    LanePass pass = passes.lanes(t, List.of(lane), this::lease);
    if (!pass.leases().get(0).acquired()) {
      return null;
    }
    Claim.Stamped heads =
        pass.claim(
            new LaneClaim(
                Set.of(lane),
                settings.keysPerPass(),
                0,
                Set.of(),
                clock.instant(),
                settings.claimDuration()));
    List<ClaimedMessage> chosen = chooseCarefully(heads.messages(), step);
    Set<Long> chosenIds = new HashSet<>();
    chosen.forEach(m -> chosenIds.add(m.id()));
    pass.unclaim(
        heads.token(),
        heads.messages().stream()
            .map(ClaimedMessage::id)
            .filter(id -> !chosenIds.contains(id))
            .toList());
    List<ClaimedMessage> sending = chosen;
    if (step == CarefulStep.GROUP) {
      pass.markInFlight(heads.token(), chosenIds);
    } else if (!chosen.isEmpty()) {
      ClaimedMessage suspect = chosen.get(0);
      pass.markSentAlone(heads.token(), suspect.id());
      sending =
          List.of(suspect.withMoreAttempts(suspect.attemptsWhenSentAlone() - suspect.attempts()));
    }
    pass.end();
    return new CarefulClaim(
        new Claim.Stamped(heads.token(), heads.expiresAt(), sending),
        chosen.size() < heads.messages().size());
  }

  /**
   * The heads a careful step sends: in a group step the heads not marked in flight; otherwise the
   * one marked head with the fewest attempts (the oldest of those), or none.
   */
  private static List<ClaimedMessage> chooseCarefully(
      List<ClaimedMessage> heads, CarefulStep step) {
    List<ClaimedMessage> fresh = new ArrayList<>();
    ClaimedMessage suspect = null;
    for (ClaimedMessage m : heads) {
      if (!m.wasInFlight()) {
        fresh.add(m);
      } else if (suspect == null || m.attempts() < suspect.attempts()) {
        suspect = m;
      }
    }
    if (step == CarefulStep.GROUP) {
      return fresh;
    }
    return suspect == null ? List.of() : List.of(suspect);
  }

  /**
   * Gives the lane's lease up if this owner holds it, in a transaction of its own (committed on a
   * pool whose connections do not auto-commit too); true if it did.
   */
  public boolean release(DSLContext dsl, int lane) {
    String name = LEASE_PREFIX + lane;
    boolean released =
        dsl.transactionResult(tx -> passes.leases().release(tx.dsl(), name, settings.owner()));
    leases.released(name, settings.owner());
    return released;
  }
}
