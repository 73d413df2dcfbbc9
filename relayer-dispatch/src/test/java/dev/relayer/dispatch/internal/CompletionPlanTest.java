package dev.relayer.dispatch.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.relayer.dispatch.internal.CompletionPlan.Hold;
import dev.relayer.dispatch.internal.CompletionPlan.RetryPolicy;
import dev.relayer.dispatch.spi.DeadReason;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.Completion;
import dev.relayer.store.pass.FailedSend;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The outcome → completion rule of {@link CompletionPlan#of}: what is deleted, retried (and when),
 * given back and buried (and why). No database: the plan is decided from the outcome alone.
 */
class CompletionPlanTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final int MAX_ATTEMPTS = 5;

  /**
   * 1 s after the first attempt, doubling up to 60 s; a delay lies between half its base and it.
   */
  private static final RetryPolicy POLICY =
      new RetryPolicy(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60)), MAX_ATTEMPTS);

  /** How long each transport has been failing: none is. */
  private static Duration nothingFailing(String transport) {
    return Duration.ZERO;
  }

  private static ClaimedMessage row(long id, String transport, int attempts) {
    return row(id, transport, attempts, null);
  }

  private static ClaimedMessage row(
      long id, String transport, int attempts, @Nullable String lastError) {
    return new ClaimedMessage(
        id,
        new UUID(0, id),
        transport,
        "orders",
        "test.Type",
        Map.of(),
        new byte[] {(byte) id},
        null,
        null,
        null,
        attempts,
        NOW.minusSeconds(60),
        lastError,
        null);
  }

  private static SendOutcome accepted(ClaimedMessage... rows) {
    return new SendOutcome(List.of(rows), List.of(), List.of(), List.of());
  }

  private static SendOutcome failed(SendOutcome.Failure... failures) {
    return new SendOutcome(List.of(), List.of(failures), List.of(), List.of());
  }

  private static SendOutcome exhausted(ClaimedMessage... rows) {
    return new SendOutcome(List.of(), List.of(), List.of(rows), List.of());
  }

  private static CompletionPlan plan(SendOutcome outcome) {
    return CompletionPlan.of(outcome, NOW, POLICY, CompletionPlanTest::nothingFailing);
  }

  @Test
  void acceptedRowsAreDeletedAndNothingElseIsWritten() {
    CompletionPlan plan = plan(accepted(row(1, "rabbitmq", 1), row(2, "rabbitmq", 3)));

    assertThat(plan.completion().accepted()).containsExactly(1L, 2L);
    assertThat(plan.completion().retries()).isEmpty();
    assertThat(plan.completion().buried()).isEmpty();
    assertThat(plan.completion().at()).isEqualTo(NOW);
    assertThat(plan.holds()).isEmpty();
  }

  @Test
  void anExhaustedRowIsBuriedOutOfAttemptsWithItsLastError() {
    ClaimedMessage crashed = row(1, "rabbitmq", MAX_ATTEMPTS + 1, "broker closed the channel");
    ClaimedMessage neverFailed = row(2, "rabbitmq", MAX_ATTEMPTS + 1);

    CompletionPlan plan = plan(exhausted(crashed, neverFailed));

    assertThat(plan.completion().buried())
        .extracting(b -> b.message().id(), Completion.Burial::reason, Completion.Burial::error)
        .containsExactly(
            tuple(
                1L,
                "max-attempts",
                "claimed 6 times without completing; last error: broker closed the channel"),
            tuple(2L, "max-attempts", "claimed 6 times without completing"));
    assertThat(plan.completion().buried())
        .extracting(plan::reason)
        .containsExactly(DeadReason.MAX_ATTEMPTS, DeadReason.MAX_ATTEMPTS);
    assertThat(plan.completion().retries()).isEmpty();
    assertThat(plan.holds()).isEmpty();
  }

  @Test
  void aPermanentRejectionIsBuriedAtOnceOnItsFirstAttempt() {
    ClaimedMessage m = row(1, "rabbitmq", 1);

    CompletionPlan plan =
        plan(failed(new SendOutcome.Failure(m, SendFailure.REJECTED, "message too large")));

    assertThat(plan.completion().buried())
        .extracting(b -> b.message().id(), Completion.Burial::reason, Completion.Burial::error)
        .containsExactly(tuple(1L, "rejected", "message too large"));
    assertThat(plan.reason(plan.completion().buried().get(0))).isEqualTo(DeadReason.REJECTED);
    assertThat(plan.completion().retries()).isEmpty();
    assertThat(plan.holds()).isEmpty();
  }

  @Test
  void anUnchargedFailureIsRefundedAndWaitsAboutAsLongAsItsTransportHasBeenFailing() {
    ClaimedMessage m = row(1, "rabbitmq", 2);
    Function<String, Duration> failingFor =
        transport -> transport.equals("rabbitmq") ? Duration.ofSeconds(40) : Duration.ZERO;

    CompletionPlan plan =
        CompletionPlan.of(
            failed(new SendOutcome.Failure(m, SendFailure.UNAVAILABLE, "connection refused")),
            NOW,
            POLICY,
            failingFor);

    assertThat(plan.completion().retries()).hasSize(1);
    FailedSend retry = plan.completion().retries().get(0);
    assertThat(retry.id()).isEqualTo(1L);
    assertThat(retry.error()).isEqualTo("connection refused");
    assertThat(retry.refund()).as("the attempt is given back").isTrue();
    // The outage's 40 s, longer than the row's own 2 s backoff, jittered down to at most half.
    assertThat(retry.retryAt()).isBetween(NOW.plusSeconds(20), NOW.plusSeconds(40));
    assertThat(plan.holds()).containsExactly(new Hold("rabbitmq", retry.retryAt()));
    assertThat(plan.completion().buried()).isEmpty();
  }

  @Test
  void anOutageNeverBuriesARowEvenOutOfAttempts() {
    ClaimedMessage m = row(1, "rabbitmq", MAX_ATTEMPTS);
    SendOutcome.Failure inOutage =
        new SendOutcome.Failure(m, SendFailure.TIMED_OUT, "no confirm in time").refunded();

    CompletionPlan plan = plan(failed(inOutage));

    assertThat(plan.completion().buried()).isEmpty();
    assertThat(plan.completion().retries())
        .extracting(FailedSend::id, FailedSend::refund)
        .containsExactly(tuple(1L, true));
  }

  @Test
  void aChargedFailureWithAttemptsLeftIsRetriedAfterItsBackoffAndHoldsItsTransport() {
    ClaimedMessage m = row(1, "rabbitmq", 3);

    CompletionPlan plan =
        plan(failed(new SendOutcome.Failure(m, SendFailure.SEND_FAILED, "basic.nack")));

    assertThat(plan.completion().retries()).hasSize(1);
    FailedSend retry = plan.completion().retries().get(0);
    assertThat(retry.id()).isEqualTo(1L);
    assertThat(retry.error()).isEqualTo("basic.nack");
    assertThat(retry.refund()).as("the attempt stays counted").isFalse();
    // After the third attempt the base delay is 4 s; the drawn delay lies between 2 s and 4 s.
    assertThat(retry.retryAt()).isBetween(NOW.plusSeconds(2), NOW.plusSeconds(4));
    assertThat(plan.holds()).containsExactly(new Hold("rabbitmq", retry.retryAt()));
    assertThat(plan.completion().buried()).isEmpty();
  }

  @Test
  void aChargedFailureOnTheLastAttemptIsBuriedOutOfAttemptsWithTheSendsError() {
    ClaimedMessage m = row(1, "rabbitmq", MAX_ATTEMPTS);

    CompletionPlan plan =
        plan(failed(new SendOutcome.Failure(m, SendFailure.TIMED_OUT, "send timed out")));

    assertThat(plan.completion().buried())
        .extracting(b -> b.message().id(), Completion.Burial::reason, Completion.Burial::error)
        .containsExactly(tuple(1L, "max-attempts", "send timed out"));
    assertThat(plan.reason(plan.completion().buried().get(0))).isEqualTo(DeadReason.MAX_ATTEMPTS);
    assertThat(plan.completion().retries()).isEmpty();
    assertThat(plan.holds()).isEmpty();
  }

  @Test
  void anUnknownTransportIsRetriedWithoutHoldingAnyTransportThenBuriedAsUnknown() {
    ClaimedMessage early = row(1, "nope", 1);
    ClaimedMessage last = row(2, "nope", MAX_ATTEMPTS);
    String error = "unknown transport 'nope'";

    CompletionPlan plan =
        plan(
            failed(
                new SendOutcome.Failure(early, SendFailure.UNKNOWN_TRANSPORT, error),
                new SendOutcome.Failure(last, SendFailure.UNKNOWN_TRANSPORT, error)));

    assertThat(plan.completion().retries())
        .extracting(FailedSend::id, FailedSend::refund)
        .containsExactly(tuple(1L, false));
    assertThat(plan.holds()).as("no transport of that name to hold").isEmpty();
    assertThat(plan.completion().buried())
        .extracting(b -> b.message().id(), Completion.Burial::reason)
        .containsExactly(tuple(2L, "unknown-transport"));
    assertThat(plan.reason(plan.completion().buried().get(0)))
        .isEqualTo(DeadReason.UNKNOWN_TRANSPORT);
  }

  @Test
  void aMixedOutcomeKeepsEachListInTheOutcomesOrder() {
    ClaimedMessage sent = row(1, "rabbitmq", 1);
    ClaimedMessage rejected = row(2, "rabbitmq", 1);
    ClaimedMessage retried = row(3, "kafka", 1);
    ClaimedMessage outOfAttempts = row(4, "kafka", MAX_ATTEMPTS + 1);

    CompletionPlan plan =
        plan(
            new SendOutcome(
                List.of(sent),
                List.of(
                    new SendOutcome.Failure(retried, SendFailure.SEND_FAILED, "nack"),
                    new SendOutcome.Failure(rejected, SendFailure.REJECTED, "too large")),
                List.of(outOfAttempts),
                List.of(row(5, "kafka", 1))));

    assertThat(plan.completion().accepted()).containsExactly(1L);
    assertThat(plan.completion().retries()).extracting(FailedSend::id).containsExactly(3L);
    assertThat(plan.completion().buried())
        .as("exhausted rows first, then failures")
        .extracting(b -> b.message().id(), Completion.Burial::reason)
        .containsExactly(tuple(4L, "max-attempts"), tuple(2L, "rejected"));
    assertThat(plan.holds()).extracting(Hold::transport).containsExactly("kafka");
  }
}
