package dev.relayer.dispatch.internal;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.dispatch.spi.SendBatch;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimedMessage;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends claimed rows to their transports and says what became of each; no database work. Direct
 * dispatch and the sweeper send a whole claim with {@link #send(Claim)}; ordered lanes pick their
 * own batches and send each with {@link #sendBatch}. Writing the outcome is {@link
 * OutcomeWriter#complete}'s.
 *
 * <p>The send path, top to bottom:
 *
 * <ol>
 *   <li><b>Rows out of attempts.</b> A row that used more than {@code maxAttempts} claims is not
 *       sent: it is reported {@linkplain SendOutcome#exhausted() exhausted}.
 *   <li><b>Routes.</b> The other rows are grouped by route, (transport, destination), in the order
 *       each route first appears in the claim; within a route the claim's order is kept. Rows
 *       naming a transport that is not registered fail with {@link SendFailure#UNKNOWN_TRANSPORT}.
 *   <li><b>Batch limits.</b> A route's rows are split into native batches of at most the
 *       transport's {@link Transport#maxBatchSize()} (at least 1).
 *   <li><b>Last start.</b> No batch starts after {@link #lastStart(Claim)}, the claim's expiry less
 *       the send timeout: a batch started later could still be running when the claim lapses and
 *       another instance claims the rows. Its rows are reported {@linkplain
 *       SendOutcome#notAttempted() not attempted}, given back without spending an attempt.
 *   <li><b>The call.</b> Each batch is one {@link Transport#send} call, run on a thread of this
 *       sender's own pool ({@code relayer-<store>-send-N}) while the calling thread waits for it at
 *       most the send timeout. This is the one place the send timeout is enforced; the transport is
 *       given it too ({@link TransportBatch#timeout()}), and must fail the rest of the batch rather
 *       than block past it.
 *   <li><b>Results.</b> Each row of the batch is sorted by how the call ended:
 *       <ul>
 *         <li>it returned one result per row: an accepted result is accepted; a {@linkplain
 *             SendResult#rejected(String) rejected} one fails with {@link SendFailure#REJECTED}
 *             (buried at once); an {@linkplain SendResult#unavailable(String) unavailable} one with
 *             {@link SendFailure#UNAVAILABLE} (retried, its attempt given back); a {@linkplain
 *             SendResult#timedOut(String) timed-out} one with {@link SendFailure#TIMED_OUT}; any
 *             other fails with {@link SendFailure#SEND_FAILED} (retried), and a {@code null} result
 *             fails with {@link SendFailure#SEND_FAILED} too;
 *         <li>it returned {@code null} or a list of another size: every row fails with {@link
 *             SendFailure#SEND_FAILED}, as nothing says which rows went out;
 *         <li>it threw {@link InvalidInputException}: every row fails with {@link
 *             SendFailure#REJECTED}; anything else it threw: every row fails with {@link
 *             SendFailure#SEND_FAILED};
 *         <li>it did not return within the send timeout: the call is cancelled (its thread
 *             interrupted) and every row fails with {@link SendFailure#TIMED_OUT} (retried). The
 *             rows may have reached the broker: delivery is at least once;
 *         <li>the waiting thread was interrupted (shutdown): the call is cancelled, every row fails
 *             with {@link SendFailure#SEND_FAILED} and the interrupt is kept.
 *       </ul>
 *   <li><b>Reporting.</b> While a listener is registered, each call is timed and reported as a
 *       {@link SendBatch} ({@code batchSent}); without one, nothing is timed. Every send's accepted
 *       and failed rows go to the {@link TransportWatch} (rows naming an unknown transport, and
 *       rows not attempted, are not sends), which gives back the attempts of every failure while
 *       the transport is in an outage.
 * </ol>
 *
 * <p>Thread-safe: direct dispatch workers, the sweeper and lane workers share one sender.
 */
public final class Sender implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Sender.class);

  private final Map<String, Transport> transports;
  private final Duration sendTimeout;
  private final int maxAttempts;
  private final Clock clock;
  private final Events events;
  private final ExecutorService calls;
  private final TransportWatch sends;

  /**
   * What a sender needs besides its clock and events.
   *
   * @param store the store's display name, for thread names and log lines
   * @param transports the registered transports, by name
   * @param sendTimeout how long one transport call may take
   * @param maxAttempts claims a row may use; a row past them is not sent
   */
  public record Settings(
      String store, Map<String, Transport> transports, Duration sendTimeout, int maxAttempts) {
    public Settings {
      transports = Map.copyOf(transports);
    }
  }

  public Sender(Settings settings, Clock clock, Events events) {
    this.transports = settings.transports();
    this.sendTimeout = settings.sendTimeout();
    this.maxAttempts = settings.maxAttempts();
    this.clock = clock;
    this.events = events;
    this.calls = Executors.newCachedThreadPool(new NamedThreads(settings.store(), "send"));
    this.sends = new TransportWatch(settings.store(), clock, OperatorLog.to(log));
  }

  /** Per-transport send counts over the last minute, and the failing/recovered log lines. */
  public TransportWatch sends() {
    return sends;
  }

  /** Claims a row may use; a row that used more is not sent. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** Names of the registered transports. */
  public Set<String> transportNames() {
    return new TreeSet<>(transports.keySet());
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

  /** The registered transport of this name, or {@code null}. */
  public @Nullable Transport transport(String name) {
    return transports.get(name);
  }

  /** The last instant a batch of {@code claim} may start: its expiry less the send timeout. */
  public Instant lastStart(Claim claim) {
    return claim.expiresAt().minus(sendTimeout);
  }

  /** Whether {@code lastStart} has passed: no further batch of its claim may start. */
  public boolean passed(Instant lastStart) {
    return clock.instant().isAfter(lastStart);
  }

  /** Sends the claimed rows as the class comment describes: by route, in native batches. */
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
    Instant lastStart = lastStart(claim);
    for (List<ClaimedMessage> group : groups.values()) {
      ClaimedMessage first = group.get(0);
      Transport transport = transports.get(first.transport());
      if (transport == null) {
        String error = "unknown transport '" + first.transport() + "'";
        group.forEach(
            m -> failed.add(new SendOutcome.Failure(m, SendFailure.UNKNOWN_TRANSPORT, error)));
        continue;
      }
      int limit = Math.max(1, transport.maxBatchSize());
      for (int from = 0; from < group.size(); from += limit) {
        List<ClaimedMessage> chunk = group.subList(from, Math.min(group.size(), from + limit));
        if (passed(lastStart)) {
          notAttempted.addAll(chunk);
          continue;
        }
        sendChunk(transport, first.destination(), chunk, accepted, failed);
      }
    }
    return sends.recorded(new SendOutcome(accepted, failed, exhausted, notAttempted));
  }

  /**
   * Sends {@code rows} as given, in one native batch (the caller keeps to the transport's batch
   * limit and to {@link #lastStart}), and reports per row; for ordered lanes.
   */
  public SendOutcome sendBatch(Transport transport, String destination, List<ClaimedMessage> rows) {
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
  // The send gate is held for its effect alone (see SendGate).
  @SuppressWarnings("try")
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
    // Held for the call: a row sent alone waits for it (see SendGate).
    try (SendGate.Hold gate = SendGate.PROCESS.shared()) {
      Future<List<SendResult>> call = calls.submit(() -> transport.send(batch));
      try {
        results = call.get(sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        call.cancel(true);
        String error =
            "send to '" + destination + "' timed out after " + Durations.format(sendTimeout);
        chunk.forEach(m -> failed.add(new SendOutcome.Failure(m, SendFailure.TIMED_OUT, error)));
        return true;
      } catch (ExecutionException e) {
        Throwable cause = Objects.requireNonNull(e.getCause());
        SendFailure reason =
            cause instanceof InvalidInputException ? SendFailure.REJECTED : SendFailure.SEND_FAILED;
        chunk.forEach(
            m -> failed.add(new SendOutcome.Failure(m, reason, SendResult.describe(cause))));
        return false;
      } catch (InterruptedException e) {
        call.cancel(true);
        Thread.currentThread().interrupt();
        failAll(chunk, "send interrupted by shutdown", failed);
        return false;
      }
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
        SendFailure reason;
        if (result == null) {
          reason = SendFailure.SEND_FAILED;
        } else if (result.isPermanent()) {
          reason = SendFailure.REJECTED;
        } else if (result.isUnavailable()) {
          reason = SendFailure.UNAVAILABLE;
        } else {
          reason = result.isTimedOut() ? SendFailure.TIMED_OUT : SendFailure.SEND_FAILED;
        }
        failed.add(new SendOutcome.Failure(chunk.get(i), reason, error));
      }
    }
    return false;
  }

  private static void failAll(
      List<ClaimedMessage> chunk, String error, List<SendOutcome.Failure> failed) {
    chunk.forEach(m -> failed.add(new SendOutcome.Failure(m, SendFailure.SEND_FAILED, error)));
  }

  /** Stops the call pool: transport calls still running are interrupted. */
  @Override
  public void close() {
    calls.shutdownNow();
  }
}
