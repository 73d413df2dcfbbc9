package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.spi.DeadReason;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.Completion;
import dev.relayer.store.pass.FailedSend;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What a send's outcome makes of a claim's rows, decided without the database: {@link #of} is a
 * function of the outcome, the instant, the retry policy and how long each transport has been
 * failing (the backoff's jitter aside). A pass writes the {@link #completion()} under its claim's
 * token; {@link #holds()} go to the {@link TransportWatch}.
 *
 * <p>Row by row, in the order of the outcome:
 *
 * <ul>
 *   <li>accepted: deleted;
 *   <li>exhausted (claimed more than {@code maxAttempts} times without completing): buried, {@link
 *       DeadReason#MAX_ATTEMPTS}, with an error saying so and the last error;
 *   <li>rejected for good ({@linkplain SendOutcome.Failure#permanent() permanent}): buried, {@link
 *       DeadReason#REJECTED}, whatever its attempts;
 *   <li>not charged (an unavailable broker, an outage): retried with its attempt given back, after
 *       about as long as its transport has been failing ({@link Backoff#delayDuring}), whatever its
 *       attempts; the transport is held until then;
 *   <li>charged, with {@code maxAttempts} used: buried, {@link DeadReason#UNKNOWN_TRANSPORT} when
 *       no transport of its name is registered, else {@link DeadReason#MAX_ATTEMPTS};
 *   <li>charged, with attempts left: retried after its backoff ({@link Backoff#delayAfter}); its
 *       transport is held until then, unless it is not registered here.
 * </ul>
 *
 * Rows not attempted are in none of the lists: the caller gives them back.
 *
 * @param completion what to write: ids to delete, rows to hold, rows to bury (an ordered row parks)
 * @param holds the retry instants to note per transport, in the order of the failures
 * @param reasons why each buried row is buried, by id
 */
public record CompletionPlan(
    Completion completion, List<Hold> holds, Map<Long, DeadReason> reasons) {

  public CompletionPlan {
    holds = List.copyOf(holds);
    reasons = Map.copyOf(reasons);
  }

  /**
   * A row of {@code transport} failed and is held until {@code until}: while the transport keeps
   * failing, health counts it failing until then ({@link TransportWatch#held}).
   */
  public record Hold(String transport, Instant until) {}

  /**
   * The retry policy.
   *
   * @param backoff the delay before a failed row is tried again
   * @param maxAttempts claims a row may use before a charged failure buries it
   */
  public record RetryPolicy(Backoff backoff, int maxAttempts) {}

  /**
   * The plan for {@code outcome} at {@code now}, as the class documentation says.
   *
   * @param failingFor how long a transport, by name, has been failing every send; zero when it is
   *     not
   */
  public static CompletionPlan of(
      SendOutcome outcome, Instant now, RetryPolicy policy, Function<String, Duration> failingFor) {
    List<Long> accepted = outcome.accepted().stream().map(ClaimedMessage::id).toList();
    List<FailedSend> retries = new ArrayList<>();
    List<Hold> holds = new ArrayList<>();
    Burials buried = new Burials();
    for (ClaimedMessage m : outcome.exhausted()) {
      String error =
          "claimed "
              + m.attempts()
              + " times without completing"
              + (m.lastError() == null ? "" : "; last error: " + m.lastError());
      buried.add(m, DeadReason.MAX_ATTEMPTS, error);
    }
    for (SendOutcome.Failure failure : outcome.failed()) {
      ClaimedMessage m = failure.message();
      if (failure.permanent()) {
        buried.add(m, DeadReason.REJECTED, failure.error());
      } else if (!failure.charged()) {
        // An outage, not the row's fault: its attempt is given back, and it waits about as long
        // as the transport has been failing (capped by backoffMax) before it is tried again.
        Duration failing = failingFor.apply(m.transport());
        Instant retryAt = now.plus(policy.backoff().delayDuring(m.attempts(), failing));
        retries.add(FailedSend.refunded(m.id(), failure.error(), retryAt));
        holds.add(new Hold(m.transport(), retryAt));
      } else if (m.attempts() >= policy.maxAttempts()) {
        buried.add(
            m,
            failure.reason() == SendFailure.UNKNOWN_TRANSPORT
                ? DeadReason.UNKNOWN_TRANSPORT
                : DeadReason.MAX_ATTEMPTS,
            failure.error());
      } else {
        Instant retryAt = now.plus(policy.backoff().delayAfter(m.attempts()));
        retries.add(new FailedSend(m.id(), failure.error(), retryAt));
        if (failure.reason() != SendFailure.UNKNOWN_TRANSPORT) {
          holds.add(new Hold(m.transport(), retryAt));
        }
      }
    }
    return new CompletionPlan(
        new Completion(accepted, retries, buried.burials, now), holds, buried.reasons);
  }

  /** Why {@code burial}, one of this plan's, buries its row. */
  public DeadReason reason(Completion.Burial burial) {
    return Objects.requireNonNull(
        reasons.get(burial.message().id()), () -> "not buried by this plan: " + burial);
  }

  /** Burials with their reasons, as stored and as typed. */
  private static final class Burials {
    final List<Completion.Burial> burials = new ArrayList<>();
    final Map<Long, DeadReason> reasons = new HashMap<>();

    void add(ClaimedMessage m, DeadReason reason, String error) {
      burials.add(new Completion.Burial(m, reason.tag(), error));
      reasons.put(m.id(), reason);
    }
  }
}
