package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.SweepResult;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.Claim;
import dev.relayer.store.ClaimPage;
import dev.relayer.store.LeaseOutcome;
import dev.relayer.store.LeaseRequest;
import dev.relayer.store.RelayerStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.jooq.DSLContext;

/**
 * One sweep pass: under the {@code sweeper} lease, claim the next keyset page of unordered rows
 * that are due, unclaimed and older than the recovery delay, send them, and complete them — claims,
 * completions and the lease renewal in the one transaction that locked the lease row.
 *
 * <p>The claim is {@linkplain dev.relayer.store.RelayerStore#lockPage locked, not stamped}: the
 * pass transaction's row locks keep other claimers off the rows until it commits, and a stamp
 * written in it would be deleted with the sent rows or overwritten by the completion before anyone
 * could see it. Rows that are not sent get the stamp (token, expiry, one more attempt) at
 * completion.
 *
 * <p>Traversal: the end of a traversal ({@code upTo}) is the highest pending unordered id when it
 * began; the cursor moves up to it page by page and wraps to the start after an empty page. New
 * traffic lands above {@code upTo} and cannot starve rows behind the cursor. The traversal state
 * lives in this instance only; a new leader starts from the beginning.
 */
public final class Sweeper {

  /** Name of the sweeper's lease. */
  public static final String LEASE = "sweeper";

  private final DeliveryEngine engine;
  private final Settings settings;
  private final LeaseTracker leases;
  private long cursor;
  private long upTo = -1;

  /** What a pass needs besides the engine. */
  public record Settings(
      String owner,
      int batchSize,
      Duration recoveryDelay,
      Duration claimDuration,
      Duration leaseDuration) {}

  public Sweeper(DeliveryEngine engine, Settings settings, LeaseTracker leases) {
    this.engine = engine;
    this.settings = settings;
    this.leases = leases;
  }

  public LeaseRequest lease() {
    return new LeaseRequest(LEASE, settings.owner(), settings.leaseDuration());
  }

  /** Runs one pass on {@code dsl} (one transaction, one connection). */
  public synchronized SweepResult pass(DSLContext dsl) {
    RelayerStore store = engine.store();
    Step step =
        dsl.transactionResult(
            tx -> {
              DSLContext t = tx.dsl();
              LeaseOutcome outcome = store.startLeasedPass(t, lease());
              if (!outcome.acquired()) {
                return Step.NOT_LEADER;
              }
              long end = upTo;
              long from = cursor;
              if (end < 0) {
                OptionalLong highest = store.highestPendingUnorderedId(t);
                if (highest.isEmpty()) {
                  store.renewLease(t, lease());
                  return new Step(true, 0, -1, 0, 0, List.of(), true);
                }
                end = highest.getAsLong();
                from = 0;
              }
              Instant now = engine.clock().instant();
              Claim claim =
                  store.lockPage(
                      t,
                      new ClaimPage(
                          from,
                          end,
                          now.minus(settings.recoveryDelay()),
                          settings.batchSize(),
                          now,
                          settings.claimDuration()));
              if (claim.isEmpty()) {
                store.renewLease(t, lease());
                return new Step(true, 0, -1, 0, 0, List.of(), true);
              }
              SendOutcome sent = engine.send(claim);
              List<Consumer<RelayerEventListener>> events =
                  engine.complete(t, claim, sent, "sweeper");
              store.renewLease(t, lease());
              long last = claim.messages().get(claim.messages().size() - 1).id();
              return new Step(
                  true, last, end, claim.messages().size(), sent.accepted().size(), events, false);
            });
    leases.observe(LEASE, settings.owner(), step.leader());
    if (!step.leader()) {
      cursor = 0;
      upTo = -1;
      return new SweepResult(false, 0, 0, false);
    }
    if (step.wrapped()) {
      cursor = 0;
      upTo = -1;
    } else {
      cursor = step.cursor();
      upTo = step.upTo();
    }
    engine.emit(step.events());
    return new SweepResult(true, step.claimed(), step.sent(), step.wrapped());
  }

  private record Step(
      boolean leader,
      long cursor,
      long upTo,
      int claimed,
      int sent,
      List<Consumer<RelayerEventListener>> events,
      boolean wrapped) {
    static final Step NOT_LEADER = new Step(false, 0, -1, 0, 0, List.of(), false);
  }
}
