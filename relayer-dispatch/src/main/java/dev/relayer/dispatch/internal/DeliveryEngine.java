package dev.relayer.dispatch.internal;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.dispatch.spi.SendBatch;
import dev.relayer.store.Claim;
import dev.relayer.store.ClaimedMessage;
import dev.relayer.store.DeadLetter;
import dev.relayer.store.FailedSend;
import dev.relayer.store.RelayerStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim → send → complete path shared by direct dispatch, the sweeper and lane workers: groups
 * claimed rows by transport and destination, splits them by the transport's native batch limit,
 * sends each batch with a bounded wait, and writes the outcome with fenced statements.
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

  /**
   * Reason stored for rows the transport rejected for good ({@link SendResult#rejected(String)}, or
   * an {@link InvalidInputException} thrown from its {@code send}).
   */
  public static final String REJECTED = "rejected";

  /** Reason of a failure that is retried. */
  static final String SEND_FAILED = "send-failed";

  /** Reason of a failure that is retried: the transport call did not return in time. */
  static final String TIMED_OUT = "timed-out";

  /** Reason stored for rows naming a transport that is not registered. */
  public static final String UNKNOWN_TRANSPORT = "unknown-transport";

  private static final Logger log = LoggerFactory.getLogger(DeliveryEngine.class);

  private final RelayerStore store;
  private final Map<String, Transport> transports;
  private final Duration sendTimeout;
  private final int maxAttempts;
  private final Backoff backoff;
  private final Clock clock;
  private final Events events;
  private final ExecutorService senders;
  private final TransportWatch sends;
  private final HandoffWatch handoffs;

  public DeliveryEngine(
      RelayerStore store,
      Map<String, Transport> transports,
      DeliverySettings settings,
      Clock clock,
      Events events) {
    this.store = store;
    this.transports = Map.copyOf(transports);
    this.sendTimeout = settings.sendTimeout();
    this.maxAttempts = settings.maxAttempts();
    this.backoff = settings.backoff();
    this.clock = clock;
    this.events = events;
    this.senders = Executors.newCachedThreadPool(new NamedThreads(store.displayName(), "send"));
    this.sends = new TransportWatch(store.displayName(), clock, OperatorLog.to(log));
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

  /** Per-transport send counts over the last minute, and the failing/recovered log lines. */
  public TransportWatch sends() {
    return sends;
  }

  /** Dropped hand-offs and rows the sweeper delivered without one. */
  public HandoffWatch handoffs() {
    return handoffs;
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  /** How long one transport call may take. */
  public Duration sendTimeout() {
    return sendTimeout;
  }

  /** Names of the registered transports that preserve a batch's order. */
  public Set<String> batchOrderTransports() {
    Set<String> names = new TreeSet<>();
    transports.forEach(
        (name, transport) -> {
          if (transport.preservesBatchOrder()) {
            names.add(name);
          }
        });
    return names;
  }

  /** Whether a transport of this name is registered. */
  public boolean hasTransport(String name) {
    return transports.containsKey(name);
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

  /** The registered transport of this name, or {@code null}. */
  public @Nullable Transport transport(String name) {
    return transports.get(name);
  }

  /**
   * Sends the claimed rows (no database work). Rows that used more than {@code maxAttempts} claims
   * are not sent. Stops starting new batches once the claim is about to lapse.
   */
  public SendOutcome send(Claim claim) {
    List<ClaimedMessage> accepted = new ArrayList<>();
    List<SendOutcome.Failure> failed = new ArrayList<>();
    List<ClaimedMessage> exhausted = new ArrayList<>();
    List<ClaimedMessage> notAttempted = new ArrayList<>();
    Map<String, List<ClaimedMessage>> groups = new LinkedHashMap<>();
    for (ClaimedMessage message : claim.messages()) {
      if (message.attempts() > maxAttempts) {
        exhausted.add(message);
      } else {
        groups
            .computeIfAbsent(
                message.transport() + '\u0000' + message.destination(), k -> new ArrayList<>())
            .add(message);
      }
    }
    Instant lastStart = claim.expiresAt().minus(sendTimeout);
    for (List<ClaimedMessage> group : groups.values()) {
      ClaimedMessage first = group.get(0);
      Transport transport = transports.get(first.transport());
      if (transport == null) {
        String error = "unknown transport '" + first.transport() + "'";
        group.forEach(m -> failed.add(new SendOutcome.Failure(m, UNKNOWN_TRANSPORT, error)));
        continue;
      }
      int limit = Math.max(1, transport.maxBatchSize());
      for (int from = 0; from < group.size(); from += limit) {
        List<ClaimedMessage> chunk = group.subList(from, Math.min(group.size(), from + limit));
        if (clock.instant().isAfter(lastStart)) {
          notAttempted.addAll(chunk);
          continue;
        }
        sendChunk(transport, first.destination(), chunk, accepted, failed);
      }
    }
    return sends.recorded(new SendOutcome(accepted, failed, exhausted, notAttempted));
  }

  /** Sends rows as given, one native batch, and reports per row; for ordered lanes. */
  public SendOutcome sendInOrder(
      Transport transport, String destination, List<ClaimedMessage> rows) {
    List<ClaimedMessage> accepted = new ArrayList<>();
    List<SendOutcome.Failure> failed = new ArrayList<>();
    sendChunk(transport, destination, rows, accepted, failed);
    return sends.recorded(new SendOutcome(accepted, failed, List.of(), List.of()));
  }

  private void sendChunk(
      Transport transport,
      String destination,
      List<ClaimedMessage> chunk,
      List<ClaimedMessage> accepted,
      List<SendOutcome.Failure> failed) {
    if (!events.active()) {
      callTransport(transport, destination, chunk, accepted, failed);
      return;
    }
    int acceptedBefore = accepted.size();
    long started = System.nanoTime();
    boolean timedOut = callTransport(transport, destination, chunk, accepted, failed);
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    int acceptedNow = accepted.size() - acceptedBefore;
    SendBatch.Outcome result;
    if (timedOut) {
      result = SendBatch.Outcome.TIMEOUT;
    } else if (acceptedNow == chunk.size()) {
      result = SendBatch.Outcome.SUCCESS;
    } else {
      result = acceptedNow == 0 ? SendBatch.Outcome.FAILURE : SendBatch.Outcome.PARTIAL;
    }
    SendBatch batch =
        new SendBatch(transport.name(), destination, chunk.size(), acceptedNow, result, took);
    events.emit(l -> l.batchSent(batch));
  }

  /** Sends one native batch and sorts its rows into accepted and failed; true when it timed out. */
  private boolean callTransport(
      Transport transport,
      String destination,
      List<ClaimedMessage> chunk,
      List<ClaimedMessage> accepted,
      List<SendOutcome.Failure> failed) {
    List<OutgoingMessage> outgoing = new ArrayList<>(chunk.size());
    for (ClaimedMessage m : chunk) {
      outgoing.add(
          new OutgoingMessage(
              m.messageId(),
              m.messageType(),
              m.headers(),
              m.body(),
              m.orderingKey(),
              m.tenantId()));
    }
    TransportBatch batch = new TransportBatch(destination, outgoing, sendTimeout);
    List<SendResult> results;
    Future<List<SendResult>> call = senders.submit(() -> transport.send(batch));
    try {
      results = call.get(sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      String error =
          "send to '" + destination + "' timed out after " + Durations.format(sendTimeout);
      chunk.forEach(m -> failed.add(new SendOutcome.Failure(m, TIMED_OUT, error)));
      return true;
    } catch (ExecutionException e) {
      Throwable cause = Objects.requireNonNull(e.getCause());
      String reason = cause instanceof InvalidInputException ? REJECTED : SEND_FAILED;
      chunk.forEach(
          m -> failed.add(new SendOutcome.Failure(m, reason, SendResult.describe(cause))));
      return false;
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      failAll(chunk, "send interrupted by shutdown", failed);
      return false;
    }
    if (results == null || results.size() != chunk.size()) {
      failAll(
          chunk,
          "transport '"
              + transport.name()
              + "' returned "
              + (results == null ? "no" : results.size())
              + " results for "
              + chunk.size()
              + " messages",
          failed);
      return false;
    }
    for (int i = 0; i < chunk.size(); i++) {
      SendResult result = results.get(i);
      // A result's error is null exactly when it was accepted.
      String error = result == null ? "transport returned no result" : result.error();
      if (error == null) {
        accepted.add(chunk.get(i));
      } else {
        String reason = result != null && result.isPermanent() ? REJECTED : SEND_FAILED;
        failed.add(new SendOutcome.Failure(chunk.get(i), reason, error));
      }
    }
    return false;
  }

  private static void failAll(
      List<ClaimedMessage> chunk, String error, List<SendOutcome.Failure> failed) {
    chunk.forEach(m -> failed.add(new SendOutcome.Failure(m, SEND_FAILED, error)));
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
        bury(tx, token, m, REJECTED, failure.error(), now, component, emitted);
      } else if (m.attempts() >= maxAttempts) {
        String reason =
            UNKNOWN_TRANSPORT.equals(failure.reason()) ? UNKNOWN_TRANSPORT : MAX_ATTEMPTS;
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

  @Override
  public void close() {
    senders.shutdownNow();
  }
}
