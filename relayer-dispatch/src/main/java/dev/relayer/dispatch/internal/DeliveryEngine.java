package dev.relayer.dispatch.internal;

import dev.relayer.api.spi.Transport;
import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.Claim;
import dev.relayer.store.ClaimedMessage;
import dev.relayer.store.DeadLetter;
import dev.relayer.store.FailedSend;
import dev.relayer.store.RelayerStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim → send → complete path shared by direct dispatch, the sweeper and lane workers: the
 * {@link Sender} sends the claimed rows (by route, in native batches, each call bounded by the send
 * timeout); this writes the outcome with fenced statements ({@link #complete}) and charges rows a
 * pass took over ({@link #markTakenOver}).
 */
public final class DeliveryEngine implements AutoCloseable {

  /** Reason stored for rows that ran out of attempts. */
  public static final String MAX_ATTEMPTS = "max-attempts";

  /**
   * Attempts charged to a row that a pass claims carefully after taking its lease over from an
   * owner whose lease expired: that owner may have died sending the row in a pass whose claim was
   * never committed, a send nothing else counts. See {@link #markTakenOver}.
   */
  public static final int UNTRACED_SEND = 1;

  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);

  private final RelayerStore store;
  private final Sender sender;
  private final Backoff backoff;
  private final Clock clock;
  private final Events events;
  private final HandoffWatch handoffs;

  public DeliveryEngine(
      RelayerStore store,
      Map<String, Transport> transports,
      DeliverySettings settings,
      Clock clock,
      Events events) {
    this.store = store;
    this.sender =
        new Sender(
            new Sender.Settings(
                store.displayName(), transports, settings.sendTimeout(), settings.maxAttempts()),
            clock,
            events);
    this.backoff = settings.backoff();
    this.clock = clock;
    this.events = events;
    this.handoffs = new HandoffWatch(store.displayName(), clock, OperatorLog.to(log));
  }

  /** Send timeout, retry policy and attempt limit. */
  public record DeliverySettings(Duration sendTimeout, int maxAttempts, Backoff backoff) {}

  public RelayerStore store() {
    return store;
  }

  public Clock clock() {
    return clock;
  }

  public Events events() {
    return events;
  }

  /** Sends claimed rows to their transports. */
  public Sender sender() {
    return sender;
  }

  /** Per-transport send counts over the last minute, and the failing/recovered log lines. */
  public TransportWatch sends() {
    return sender.sends();
  }

  /** Dropped hand-offs and rows the sweeper delivered without one. */
  public HandoffWatch handoffs() {
    return handoffs;
  }

  /**
   * In {@code tx}, for a claim under {@code token} that a pass took over from an owner whose lease
   * expired and commits before its send: marks the rows {@linkplain RelayerStore#IN_FLIGHT in
   * flight} and charges {@link #UNTRACED_SEND} to those that carry no error at all — the dead
   * owner's last pass may have sent them, and its crash left nothing in the rows. Rows with an
   * error (a recorded failure, or the in-flight mark of a send that did count) are not charged. So
   * no row is charged twice: after its charge it is sent and gone, marked, or carries a failure.
   * Returns the messages as they now read.
   */
  public List<ClaimedMessage> markTakenOver(
      DSLContext tx, UUID token, List<ClaimedMessage> messages) {
    List<Long> charged = new ArrayList<>();
    List<Long> marked = new ArrayList<>();
    List<ClaimedMessage> now = new ArrayList<>(messages.size());
    for (ClaimedMessage m : messages) {
      boolean charge = m.lastError() == null;
      (charge ? charged : marked).add(m.id());
      now.add(charge ? m.withMoreAttempts(UNTRACED_SEND) : m);
    }
    store.markInFlight(tx, token, charged, UNTRACED_SEND);
    store.markInFlight(tx, token, marked);
    return now;
  }

  /** Sends the claimed rows (no database work); see {@link Sender}. */
  public SendOutcome send(Claim claim) {
    return sender.send(claim);
  }

  /**
   * Writes the outcome under the claim's token: deletes accepted rows, holds failed ones for their
   * backoff, buries rows the transport rejected for good and rows out of attempts (an ordered head
   * is parked instead). Returns the events to emit once the caller's transaction has committed.
   */
  public List<Consumer<RelayerEventListener>> complete(
      DSLContext tx, Claim claim, SendOutcome outcome, String component) {
    UUID token = claim.token();
    Instant now = clock.instant();
    // Without a listener, no event is built: the list stays empty.
    boolean observed = events.active();
    List<Consumer<RelayerEventListener>> emitted = new ArrayList<>();

    List<Long> acceptedIds = outcome.accepted().stream().map(ClaimedMessage::id).toList();
    int deleted;
    if (claim instanceof Claim.Locked locked) {
      // The rows are held by this transaction's locks: sent rows go by id; the others get the
      // claim's stamp first, so the fenced writes below find them as they would a stamped claim.
      List<Long> unsent = new ArrayList<>();
      outcome.exhausted().forEach(m -> unsent.add(m.id()));
      outcome.failed().forEach(f -> unsent.add(f.message().id()));
      outcome.notAttempted().forEach(m -> unsent.add(m.id()));
      store.stampLocked(tx, locked, unsent);
      deleted = store.deleteLocked(tx, locked, acceptedIds);
    } else {
      // A Claim.Stamped: its rows carry the token.
      deleted = store.deleteFenced(tx, token, acceptedIds);
    }
    if (deleted < acceptedIds.size()) {
      log.debug(
          "store={} component={} lost {} deletes to a newer claim",
          store.displayName(),
          component,
          acceptedIds.size() - deleted);
    }
    if (observed) {
      for (ClaimedMessage m : outcome.accepted()) {
        DeliveryEvent event = event(m, component);
        emitted.add(l -> l.sent(event));
      }
    }

    List<FailedSend> retries = new ArrayList<>();
    for (ClaimedMessage m : outcome.exhausted()) {
      String error =
          "claimed "
              + m.attempts()
              + " times without completing"
              + (m.lastError() == null ? "" : "; last error: " + m.lastError());
      bury(tx, token, m, MAX_ATTEMPTS, error, now, component, emitted);
    }
    for (SendOutcome.Failure failure : outcome.failed()) {
      ClaimedMessage m = failure.message();
      if (observed) {
        DeliveryEvent event = event(m, component);
        emitted.add(l -> l.sendFailed(event, failure.kind(), failure.error()));
      }
      if (failure.permanent()) {
        bury(tx, token, m, Sender.REJECTED, failure.error(), now, component, emitted);
      } else if (m.attempts() >= sender.maxAttempts()) {
        String reason =
            Sender.UNKNOWN_TRANSPORT.equals(failure.reason())
                ? Sender.UNKNOWN_TRANSPORT
                : MAX_ATTEMPTS;
        bury(tx, token, m, reason, failure.error(), now, component, emitted);
      } else {
        Instant retryAt = now.plus(backoff.delayAfter(m.attempts()));
        retries.add(new FailedSend(m.id(), failure.error(), retryAt));
        if (observed) {
          DeliveryEvent event = event(m, component);
          emitted.add(l -> l.failed(event, failure.error(), retryAt));
        }
      }
    }
    store.recordFailures(tx, token, retries);
    return emitted;
  }

  private void bury(
      DSLContext tx,
      UUID token,
      ClaimedMessage m,
      String reason,
      String error,
      Instant now,
      String component,
      List<Consumer<RelayerEventListener>> emitted) {
    if (m.orderingKey() != null) {
      if (store.park(tx, token, m.id(), error, now)) {
        log.warn(
            "store={} lane={} id={} key={} parked ({}) after {} attempts: {}",
            store.displayName(),
            m.lane(),
            m.id(),
            m.orderingKey(),
            reason,
            m.attempts(),
            error);
        if (events.active()) {
          DeliveryEvent event = event(m, component);
          emitted.add(l -> l.parked(event, error));
        }
      }
      return;
    }
    if (store.moveToDead(tx, token, new DeadLetter(List.of(m.id()), reason, error, now)) == 1) {
      log.warn(
          "store={} id={} message_id={} moved to dead rows ({}) after {} attempts: {}",
          store.displayName(),
          m.id(),
          m.messageId(),
          reason,
          m.attempts(),
          error);
      if (events.active()) {
        DeliveryEvent event = event(m, component);
        emitted.add(l -> l.dead(event, reason, error));
      }
    }
  }

  private static DeliveryEvent event(ClaimedMessage m, String component) {
    return new DeliveryEvent(
        m.id(),
        m.messageId(),
        m.transport(),
        m.destination(),
        m.orderingKey(),
        m.attempts(),
        component,
        m.createdAt(),
        m.deliverAt());
  }

  /** Emits events collected by {@link #complete}, after the transaction committed. */
  public void emit(List<Consumer<RelayerEventListener>> collected) {
    collected.forEach(events::emit);
  }

  /** Closes the {@link Sender}. */
  @Override
  public void close() {
    sender.close();
  }
}
