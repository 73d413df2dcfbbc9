package dev.relayer.dispatch.internal;

import dev.relayer.api.spi.Transport;
import dev.relayer.dispatch.spi.DeadReason;
import dev.relayer.dispatch.spi.DeliveryComponent;
import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.Claim;
import dev.relayer.store.ClaimedMessage;
import dev.relayer.store.FailedSend;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.pass.ClaimTransaction;
import dev.relayer.store.pass.Completion;
import dev.relayer.store.pass.Passes;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim → send → complete path shared by direct dispatch, the sweeper and lane workers: the
 * {@link Sender} sends the claimed rows (by route, in native batches, each call bounded by the send
 * timeout); this writes the outcome with fenced statements ({@link #complete}).
 */
public final class DeliveryEngine implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);

  private final RelayerStore store;
  private final Passes passes;
  private final Sender sender;
  private final CompletionPlan.RetryPolicy retries;
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
    this.passes = Passes.of(store);
    this.sender =
        new Sender(
            new Sender.Settings(
                store.displayName(), transports, settings.sendTimeout(), settings.maxAttempts()),
            clock,
            events);
    this.retries = new CompletionPlan.RetryPolicy(settings.backoff(), settings.maxAttempts());
    this.clock = clock;
    this.events = events;
    this.handoffs = new HandoffWatch(store.displayName(), clock, OperatorLog.to(log));
  }

  /** Send timeout, retry policy and attempt limit. */
  public record DeliverySettings(Duration sendTimeout, int maxAttempts, Backoff backoff) {}

  public RelayerStore store() {
    return store;
  }

  /** The store's passes. */
  public Passes passes() {
    return passes;
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

  /** Sends the claimed rows (no database work); see {@link Sender}. */
  public SendOutcome send(Claim claim) {
    return sender.send(claim);
  }

  /**
   * Writes the outcome in {@code pass} under the claim's token, in one {@link Completion} as the
   * {@link CompletionPlan} decides: deletes accepted rows, holds failed ones for their backoff,
   * gives back the attempt of failures that were not the row's fault (an unavailable broker, an
   * outage), buries rows the transport rejected for good and rows out of attempts (an ordered head
   * is parked instead). Returns the events to emit once the caller's transaction has committed.
   */
  public List<Consumer<RelayerEventListener>> complete(
      ClaimTransaction pass, Claim claim, SendOutcome outcome, DeliveryComponent component) {
    CompletionPlan plan =
        CompletionPlan.of(outcome, clock.instant(), retries, sender.sends()::failingFor);
    plan.holds().forEach(hold -> sender.sends().held(hold.transport(), hold.until()));
    List<Long> acceptedIds = plan.completion().accepted();
    Completion.Written written = pass.complete(claim, plan.completion());
    if (written.deleted() < acceptedIds.size()) {
      log.debug(
          "store={} component={} lost {} deletes to a newer claim",
          store.displayName(),
          component.tag(),
          acceptedIds.size() - written.deleted());
    }
    for (Completion.Burial b : written.parked()) {
      ClaimedMessage m = b.message();
      log.warn(
          "store={} lane={} id={} key={} parked ({}) after {} attempts: {}",
          store.displayName(),
          m.lane(),
          m.id(),
          m.orderingKey(),
          b.reason(),
          m.attempts(),
          b.error());
    }
    for (Completion.Burial b : written.dead()) {
      ClaimedMessage m = b.message();
      log.warn(
          "store={} id={} message_id={} moved to dead rows ({}) after {} attempts: {}",
          store.displayName(),
          m.id(),
          m.messageId(),
          b.reason(),
          m.attempts(),
          b.error());
    }
    return events.active() ? events(outcome, plan, written, component) : List.of();
  }

  /**
   * The events of a completion, in the order of the outcome: each accepted row; each exhausted
   * row's burial; each failure, then its retry or its burial.
   */
  private static List<Consumer<RelayerEventListener>> events(
      SendOutcome outcome,
      CompletionPlan plan,
      Completion.Written written,
      DeliveryComponent component) {
    List<Consumer<RelayerEventListener>> emitted = new ArrayList<>();
    for (ClaimedMessage m : outcome.accepted()) {
      DeliveryEvent event = event(m, component);
      emitted.add(l -> l.sent(event));
    }
    Map<Long, Consumer<RelayerEventListener>> burials = new HashMap<>();
    for (Completion.Burial b : written.parked()) {
      DeliveryEvent event = event(b.message(), component);
      burials.put(b.message().id(), l -> l.parked(event, b.error()));
    }
    for (Completion.Burial b : written.dead()) {
      DeliveryEvent event = event(b.message(), component);
      DeadReason reason = plan.reason(b);
      burials.put(b.message().id(), l -> l.dead(event, reason, b.error()));
    }
    Map<Long, FailedSend> retried = new HashMap<>();
    plan.completion().retries().forEach(r -> retried.put(r.id(), r));
    for (ClaimedMessage m : outcome.exhausted()) {
      Consumer<RelayerEventListener> burial = burials.get(m.id());
      if (burial != null) {
        emitted.add(burial);
      }
    }
    for (SendOutcome.Failure failure : outcome.failed()) {
      ClaimedMessage m = failure.message();
      DeliveryEvent event = event(m, component);
      emitted.add(l -> l.sendFailed(event, failure.kind(), failure.error()));
      FailedSend retry = retried.get(m.id());
      if (retry != null) {
        emitted.add(l -> l.failed(event, failure.error(), retry.retryAt()));
      } else {
        Consumer<RelayerEventListener> burial = burials.get(m.id());
        if (burial != null) {
          emitted.add(burial);
        }
      }
    }
    return emitted;
  }

  private static DeliveryEvent event(ClaimedMessage m, DeliveryComponent component) {
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
