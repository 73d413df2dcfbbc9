package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.SweepResult;
import dev.relayer.dispatch.spi.DeliveryComponent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.store.pass.ClaimPage;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.LeaseOutcome;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Passes;
import dev.relayer.store.pass.SweepBounds;
import dev.relayer.store.pass.SweepPass;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sweep pass: under the {@code sweeper} lease, claim the next keyset page of unordered rows
 * that are due, unclaimed and older than the recovery delay, send them, and complete them — claims,
 * completions and the lease renewal in the one transaction that locked the lease row.
 *
 * <p>The claim is {@linkplain SweepPass#lockPage locked, not stamped}: the pass transaction's row
 * locks keep other claimers off the rows until it commits, and a stamp written in it would be
 * deleted with the sent rows or overwritten by the completion before anyone could see it. Rows that
 * are not sent get the stamp (token, expiry, one more attempt) at completion.
 *
 * <p>Crashes: a pass that dies during its send leaves nothing behind, so it cannot say which row
 * killed it. Three things make such a message end dead instead of looping:
 *
 * <ul>
 *   <li>a pass that acquires the lease without already holding it (its row was created, or taken
 *       from an expired owner) commits that before it claims, so the lease row names every owner
 *       that may die sending;
 *   <li>a pass that takes the lease over from an owner whose lease expired (it died or stalled
 *       mid-pass), or finds it under its own owner name without having held it (a process restarted
 *       under a fixed identity), runs <em>careful</em> until its traversal wraps: each page's claim
 *       is stamped, marked {@linkplain ClaimedMessage#IN_FLIGHT in flight with others} and
 *       committed before the send, so that a crash now leaves its rows suspect;
 *   <li>suspect rows (marked by a careful page, or by direct dispatch, whose claims always commit
 *       first) are never sent with others: after the page's own transaction, each is claimed alone
 *       ({@linkplain ClaimedMessage#SENT_ALONE marked sent alone}, committed), sent and completed
 *       while the process sends nothing else ({@link SendGate#alone()}), the ones with fewest
 *       attempts first. Only a crash while sent alone counts an attempt; a crash with others costs
 *       none (the claim alone takes the interrupted claim's attempt over). The page-mates of a
 *       message that kills its sender go out, and after {@code maxAttempts} crashes alone the
 *       message is moved to the dead table unsent.
 * </ul>
 *
 * <p>Traversal: the end of a traversal ({@code upTo}) is the highest pending unordered id when it
 * began, its start the lowest pending unordered id above the {@linkplain SweepFloor floor}; the
 * cursor moves up to the end page by page and wraps to the start after an empty page. New traffic
 * lands above {@code upTo} and cannot starve rows behind the cursor. The traversal state lives in
 * this instance only; a new leader starts from id 0, and after a takeover it walks careful until
 * its first wrap, so it reaches the dead leader's page wherever it was.
 */
public final class Sweeper {

  /** Name of the sweeper's lease. */
  public static final String LEASE = "sweeper";

  private static final Logger log = LoggerFactory.getLogger(Sweeper.class);

  private final String store;
  private final Passes passes;
  private final Clock clock;
  private final Events events;
  private final Sender sender;
  private final OutcomeWriter outcomes;
  private final HandoffWatch handoffs;
  private final Settings settings;
  private final LeaseTracker leases;
  private final SweepFloor floor;
  private long cursor;

  /** The end of the traversal under way; empty until the next page begins one. */
  private OptionalLong upTo = OptionalLong.empty();

  private boolean careful;

  /**
   * What a pass claims and how long it holds.
   *
   * @param owner this instance's identity in the lease
   * @param batchSize rows a page claims, at most
   * @param recoveryDelay how old an unscheduled row must be before the sweeper takes it
   * @param claimDuration how long a claim holds
   * @param leaseDuration how long the lease holds
   * @param fullSweepInterval how often a traversal starts from id 0 rather than the floor
   */
  public record Settings(
      String owner,
      int batchSize,
      Duration recoveryDelay,
      Duration claimDuration,
      Duration leaseDuration,
      Duration fullSweepInterval) {

    /** The settings {@code options} name, for {@code owner}. */
    public static Settings of(String owner, MaintenanceOptions options) {
      return new Settings(
          owner,
          options.batchSize(),
          options.recoveryDelay(),
          options.claimDuration(),
          options.leaseDuration(),
          options.fullSweepInterval());
    }

    /**
     * The page of ids in {@code (afterId, upToId]} a pass claims at {@code now}: at most {@code
     * batchSize} rows, unscheduled ones only once {@code recoveryDelay} old, held for {@code
     * claimDuration}.
     */
    ClaimPage page(long afterId, long upToId, Instant now) {
      return new ClaimPage(
          afterId, upToId, now.minus(recoveryDelay), batchSize, now, claimDuration);
    }
  }

  /** The sweeper over {@code delivery}'s parts, reporting its lease to {@code leases}. */
  public Sweeper(Delivery delivery, Settings settings, LeaseTracker leases) {
    this.store = delivery.store();
    this.passes = delivery.passes();
    this.clock = delivery.clock();
    this.events = delivery.events();
    this.sender = delivery.sender();
    this.outcomes = delivery.outcomes();
    this.handoffs = delivery.handoffs();
    this.settings = settings;
    this.leases = leases;
    this.floor = new SweepFloor(settings.fullSweepInterval());
  }

  public LeaseRequest lease() {
    return new LeaseRequest(LEASE, settings.owner(), settings.leaseDuration());
  }

  /**
   * Runs one pass on {@code dsl}: one transaction and one connection, plus short transactions of
   * their own for a careful page's completion and each suspect row.
   */
  public synchronized SweepResult pass(DSLContext dsl) {
    Step step = dsl.transactionResult(tx -> page(tx.dsl()));
    if (step instanceof Step.Acquired) {
      // The lease row now names this owner: a crash from here on leaves a lease that expires
      // under its name, which the next leader sees.
      step = dsl.transactionResult(tx -> page(tx.dsl()));
    }
    boolean leader = !(step instanceof Step.NotLeader);
    leases.observe(LEASE, settings.owner(), leader);
    if (step instanceof Step.SentPage page) {
      careful = false;
      cursor = page.cursor();
      upTo = OptionalLong.of(page.upTo());
      events.emitAll(page.events());
      return sendSuspects(dsl, page.claimed(), page.sent(), page.suspects());
    }
    if (step instanceof Step.CarefulPage page) {
      careful = true;
      cursor = page.cursor();
      upTo = OptionalLong.of(page.upTo());
      Claim.@Nullable Stamped committed = page.committed();
      int sent = committed == null ? 0 : sendCommitted(dsl, committed);
      return sendSuspects(dsl, page.claimed(), sent, page.suspects());
    }
    // Not the leader, or the traversal wrapped (an Acquired step here means the lease was lost
    // and taken again between the two transactions: start over as after a wrap).
    careful = false;
    cursor = 0;
    upTo = OptionalLong.empty();
    return new SweepResult(leader, 0, 0, leader);
  }

  /**
   * After a page's transaction: claims, sends and completes each of {@code suspects} alone, in
   * order, while the lease stays this owner's; returns the pass's result with the page's {@code
   * claimed} and {@code sent} rows.
   */
  // The send gate is held for its effect alone (see SendGate).
  @SuppressWarnings("try")
  private SweepResult sendSuspects(
      DSLContext dsl, int claimed, int sent, List<ClaimedMessage> suspects) {
    for (ClaimedMessage suspect : suspects) {
      try (SendGate.Hold gate = SendGate.PROCESS.alone()) {
        Claim.Stamped alone = claimAlone(dsl, suspect.id());
        if (alone == null) {
          break; // the lease is gone
        }
        claimed += alone.messages().size();
        sent += sendCommitted(dsl, alone);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break; // shutting down: the suspects wait for the next pass
      }
    }
    return new SweepResult(true, claimed, sent, false);
  }

  /**
   * In the pass transaction {@code t}: takes the lease, locks the next page, and either sends and
   * completes it there (the usual case) or, when careful, stamps and marks it to be sent once the
   * transaction committed. Rows marked in flight are left for {@link #claimAlone}.
   */
  private Step page(DSLContext t) {
    SweepPass pass = passes.sweep(t, lease());
    LeaseOutcome outcome = pass.lease();
    if (!outcome.acquired()) {
      return new Step.NotLeader();
    }
    boolean inherited = leases.inherited(LEASE, outcome);
    if (outcome.newlyAcquired() || inherited) {
      if (inherited) {
        log.warn(
            "store={} sweeper lease taken over from {}; the traversal commits each claim before"
                + " its send until it wraps",
            store,
            outcome.takenOver()
                ? "an owner whose lease expired"
                : "an earlier process under this owner name");
        careful = true;
      }
      cursor = 0;
      upTo = OptionalLong.empty();
      return new Step.Acquired();
    }
    boolean carefulPage = careful;
    long end;
    long from;
    Instant now = clock.instant();
    if (upTo.isPresent()) {
      end = upTo.getAsLong();
      from = cursor;
    } else {
      // A traversal begins: from the lowest pending unordered id above the floor to the highest.
      SweepBounds bounds = pass.bounds(floor.readFrom(now));
      floor.settle(bounds);
      if (bounds.lowest().isEmpty() || bounds.highest().isEmpty()) {
        pass.end();
        return new Step.Wrapped();
      }
      end = bounds.highest().getAsLong();
      from = bounds.lowest().getAsLong() - 1;
    }
    Claim.Locked claim = pass.lockPage(settings.page(from, end, now));
    if (claim.isEmpty()) {
      pass.end();
      return new Step.Wrapped();
    }
    List<ClaimedMessage> suspects = new ArrayList<>();
    List<ClaimedMessage> others = new ArrayList<>();
    for (ClaimedMessage m : claim.messages()) {
      (m.wasInFlight() ? suspects : others).add(m);
    }
    suspects.sort(
        Comparator.comparingInt(ClaimedMessage::attempts).thenComparingLong(ClaimedMessage::id));
    long last = claim.messages().get(claim.messages().size() - 1).id();
    Claim.Locked page = new Claim.Locked(claim.token(), claim.expiresAt(), others);
    if (carefulPage) {
      List<Long> ids = others.stream().map(ClaimedMessage::id).toList();
      pass.stamp(page, ids);
      pass.markInFlight(page.token(), ids);
      pass.end();
      Claim.@Nullable Stamped committed =
          others.isEmpty() ? null : new Claim.Stamped(page.token(), page.expiresAt(), others);
      return new Step.CarefulPage(last, end, others.size(), committed, suspects);
    }
    int sent = 0;
    List<Consumer<RelayerEventListener>> completed = List.of();
    if (!others.isEmpty()) {
      SendOutcome sends = sender.send(page);
      handoffs.sweptWithoutHandoff(neverHandedOff(sends));
      completed = outcomes.complete(pass, page, sends, DeliveryComponent.SWEEPER);
      sent = sends.accepted().size();
    }
    pass.end();
    return new Step.SentPage(last, end, others.size(), sent, completed, suspects);
  }

  /**
   * Claims the row {@code id} alone in its own committed transaction under the lease, marked sent
   * alone; {@code null} when the lease is no longer this owner's, an empty claim when the row is
   * gone or no longer claimable. The caller holds the process's send gate alone.
   */
  private Claim.@Nullable Stamped claimAlone(DSLContext dsl, long id) {
    return dsl.transactionResult(
        tx -> {
          SweepPass pass = passes.sweep(tx.dsl(), lease());
          if (!pass.lease().acquired()) {
            return null;
          }
          Claim.Stamped claim =
              pass.claimAlone(
                  new ClaimByIds(List.of(id), clock.instant(), settings.claimDuration()));
          pass.end();
          return claim;
        });
  }

  /** Sends a claim that is already committed and completes it in a transaction of its own. */
  private int sendCommitted(DSLContext dsl, Claim.Stamped claim) {
    if (claim.isEmpty()) {
      return 0;
    }
    SendOutcome outcome = sender.send(claim);
    handoffs.sweptWithoutHandoff(neverHandedOff(outcome));
    events.emitAll(
        dsl.transactionResult(
            tx ->
                outcomes.complete(
                    passes.direct(tx.dsl()), claim, outcome, DeliveryComponent.SWEEPER)));
    return outcome.accepted().size();
  }

  /**
   * Sent rows this claim was the first ever of ({@code attempts} 1, counting this one, and never in
   * flight before) and that were due when written: nobody handed them to direct dispatch, or their
   * hand-off was dropped or lost.
   */
  private static int neverHandedOff(SendOutcome sent) {
    int count = 0;
    for (var m : sent.accepted()) {
      if (m.attempts() == 1 && !m.scheduledAfterWrite() && !m.wasInFlight()) {
        count++;
      }
    }
    return count;
  }

  /** What the pass transaction did. */
  private sealed interface Step {

    /** The lease is another owner's: nothing was claimed. */
    record NotLeader() implements Step {}

    /** The lease was created or taken over; the pass commits that before it claims anything. */
    record Acquired() implements Step {}

    /** Nothing more to claim up to the traversal's end: the next page starts from the lowest id. */
    record Wrapped() implements Step {}

    /**
     * A page up to id {@code cursor} of a traversal ending at {@code upTo}: {@code claimed} rows
     * sent and completed in the pass transaction, {@code sent} of them accepted.
     *
     * @param suspects rows marked in flight that the page left alone, in the order to send them
     */
    record SentPage(
        long cursor,
        long upTo,
        int claimed,
        int sent,
        List<Consumer<RelayerEventListener>> events,
        List<ClaimedMessage> suspects)
        implements Step {}

    /**
     * A careful page up to id {@code cursor}: {@code claimed} rows stamped and marked in the pass
     * transaction, to be sent after it committed.
     *
     * @param committed the claim to send, or {@code null} when no row is left to send
     * @param suspects rows marked in flight that the page left alone, in the order to send them
     */
    record CarefulPage(
        long cursor,
        long upTo,
        int claimed,
        Claim.@Nullable Stamped committed,
        List<ClaimedMessage> suspects)
        implements Step {}
  }
}
