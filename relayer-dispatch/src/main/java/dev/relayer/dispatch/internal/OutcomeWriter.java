package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.spi.DeadReason;
import dev.relayer.dispatch.spi.DeliveryComponent;
import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimTransaction;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.Completion;
import dev.relayer.store.pass.FailedSend;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes what a send did to a claim's rows, in the pass that holds the claim: the {@link
 * CompletionPlan} decides it, {@link #complete} writes it with fenced statements under the claim's
 * token, logs what it buried and returns the events to emit once the pass committed. Shared by
 * direct dispatch, the sweeper and lane workers; thread-safe.
 */
public final class OutcomeWriter {

  private static final Logger log = LoggerFactory.getLogger(OutcomeWriter.class);

  private final String store;
  private final CompletionPlan.RetryPolicy retries;
  private final TransportWatch sends;
  private final Clock clock;
  private final Events events;

  /**
   * A writer for the store named {@code store} (its display name, for log lines) that retries by
   * {@code retries}, notes retry holds on {@code sends} (also asked how long each transport has
   * been failing), reads {@code clock} once per completion and builds events only while {@code
   * events} has a listener.
   */
  public OutcomeWriter(
      String store,
      CompletionPlan.RetryPolicy retries,
      TransportWatch sends,
      Clock clock,
      Events events) {
    this.store = store;
    this.retries = retries;
    this.sends = sends;
    this.clock = clock;
    this.events = events;
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
    CompletionPlan plan = CompletionPlan.of(outcome, clock.instant(), retries, sends::failingFor);
    plan.holds().forEach(hold -> sends.held(hold.transport(), hold.until()));
    List<Long> acceptedIds = plan.completion().accepted();
    Completion.Written written = pass.complete(claim, plan.completion());
    if (written.deleted() < acceptedIds.size()) {
      log.debug(
          "store={} component={} lost {} deletes to a newer claim",
          store,
          component.tag(),
          acceptedIds.size() - written.deleted());
    }
    for (Completion.Burial b : written.parked()) {
      ClaimedMessage m = b.message();
      log.warn(
          "store={} lane={} id={} key={} parked ({}) after {} attempts: {}",
          store,
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
          store,
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
}
