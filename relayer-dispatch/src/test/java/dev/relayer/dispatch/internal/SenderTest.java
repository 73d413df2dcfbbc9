package dev.relayer.dispatch.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.dispatch.TransportSends;
import dev.relayer.dispatch.spi.FailureKind;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.dispatch.spi.SendBatch;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimedMessage;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The send path without a database: real threads and transports written here. */
class SenderTest {

  static final String STORE = "sendertest";
  static final Duration SEND_TIMEOUT = Duration.ofMillis(300);
  static final int MAX_ATTEMPTS = 5;
  static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private final List<Sender> senders = new ArrayList<>();
  private final List<SendBatch> batchesSent = new CopyOnWriteArrayList<>();

  @AfterEach
  void closeSenders() {
    senders.forEach(Sender::close);
  }

  private Sender sender(Clock clock, Transport... transports) {
    Map<String, Transport> byName = new LinkedHashMap<>();
    for (Transport t : transports) {
      byName.put(t.name(), t);
    }
    RelayerEventListener listener =
        new RelayerEventListener() {
          @Override
          public void batchSent(SendBatch batch) {
            batchesSent.add(batch);
          }
        };
    Sender sender =
        new Sender(
            new Sender.Settings(STORE, byName, SEND_TIMEOUT, MAX_ATTEMPTS),
            clock,
            new Events(List.of(listener)));
    senders.add(sender);
    return sender;
  }

  private Sender sender(Transport... transports) {
    return sender(Clock.systemUTC(), transports);
  }

  /** A row of outbox id {@code id}, its message id derived from it, claimed once before. */
  private static ClaimedMessage row(long id, String transport, String destination) {
    return row(id, transport, destination, 1);
  }

  private static ClaimedMessage row(long id, String transport, String destination, int attempts) {
    return new ClaimedMessage(
        id,
        new UUID(0, id),
        transport,
        destination,
        "test.Type",
        Map.of(),
        new byte[] {(byte) id},
        null,
        null,
        null,
        attempts,
        NOW,
        null,
        null);
  }

  /** A claim that lapses long after any test ends. */
  private static Claim claim(ClaimedMessage... rows) {
    return claim(Instant.now().plus(Duration.ofHours(1)), rows);
  }

  private static Claim claim(Instant expiresAt, ClaimedMessage... rows) {
    return new Claim.Stamped(UUID.randomUUID(), expiresAt, Arrays.asList(rows));
  }

  private static List<Long> ids(List<ClaimedMessage> rows) {
    return rows.stream().map(ClaimedMessage::id).toList();
  }

  private static List<Long> failedIds(SendOutcome outcome) {
    return outcome.failed().stream().map(f -> f.message().id()).toList();
  }

  /** What one transport call was given, and on which thread it ran. */
  record Call(String destination, List<Long> ids, Duration timeout, String thread) {}

  /** A transport that records its calls and answers each with {@code answer}. */
  static final class TestTransport implements Transport {

    interface Answer {
      @Nullable List<SendResult> send(TransportBatch batch) throws Exception;
    }

    final String name;
    final int maxBatchSize;
    final Answer answer;
    final List<Call> calls = new CopyOnWriteArrayList<>();

    TestTransport(String name, int maxBatchSize, Answer answer) {
      this.name = name;
      this.maxBatchSize = maxBatchSize;
      this.answer = answer;
    }

    /** Accepts every message. */
    static TestTransport accepting(String name, int maxBatchSize) {
      return new TestTransport(
          name,
          maxBatchSize,
          batch -> batch.messages().stream().map(m -> SendResult.accepted()).toList());
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public int maxBatchSize() {
      return maxBatchSize;
    }

    // Returns what the answer gives, null too: the sender must cope with a broken contract.
    @Override
    public List<SendResult> send(TransportBatch batch) throws Exception {
      List<Long> ids =
          batch.messages().stream()
              .map(OutgoingMessage::messageId)
              .map(UUID::getLeastSignificantBits)
              .toList();
      calls.add(
          new Call(batch.destination(), ids, batch.timeout(), Thread.currentThread().getName()));
      return answer.send(batch);
    }
  }

  /** A clock a test moves by hand. */
  static final class ManualClock extends Clock {
    final AtomicReference<Instant> now = new AtomicReference<>(NOW);

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Instant instant() {
      return now.get();
    }
  }

  @Test
  void sendsEachRouteInBatchesOfAtMostTheTransportsLimitInClaimOrder() {
    TestTransport a = TestTransport.accepting("a", 2);
    TestTransport b = TestTransport.accepting("b", 3);
    Sender sender = sender(a, b);

    SendOutcome outcome =
        sender.send(
            claim(
                row(1, "a", "x"),
                row(2, "b", "x"),
                row(3, "a", "y"),
                row(4, "a", "x"),
                row(5, "a", "x"),
                row(6, "b", "x"),
                row(7, "a", "x"),
                row(8, "a", "x")));

    assertThat(a.calls)
        .extracting(Call::destination, Call::ids)
        .containsExactly(
            tuple("x", List.of(1L, 4L)),
            tuple("x", List.of(5L, 7L)),
            tuple("x", List.of(8L)),
            tuple("y", List.of(3L)));
    assertThat(b.calls)
        .extracting(Call::destination, Call::ids)
        .containsExactly(tuple("x", List.of(2L, 6L)));
    assertThat(ids(outcome.accepted())).containsExactly(1L, 4L, 5L, 7L, 8L, 2L, 6L, 3L);
    assertThat(outcome.failed()).isEmpty();
    assertThat(outcome.exhausted()).isEmpty();
    assertThat(outcome.notAttempted()).isEmpty();
    // Each call is told the send timeout and runs on the sender's own named threads.
    assertThat(a.calls).allSatisfy(c -> assertThat(c.timeout()).isEqualTo(SEND_TIMEOUT));
    assertThat(a.calls)
        .allSatisfy(c -> assertThat(c.thread()).startsWith("relayer-" + STORE + "-send-"));
    assertThat(batchesSent)
        .extracting(SendBatch::transport, SendBatch::size, SendBatch::outcome)
        .containsExactly(
            tuple("a", 2, SendBatch.Outcome.SUCCESS),
            tuple("a", 2, SendBatch.Outcome.SUCCESS),
            tuple("a", 1, SendBatch.Outcome.SUCCESS),
            tuple("b", 2, SendBatch.Outcome.SUCCESS),
            tuple("a", 1, SendBatch.Outcome.SUCCESS));
    assertThat(sender.sends().lastMinute().get("a").succeeded()).isEqualTo(6);
    assertThat(sender.sends().lastMinute().get("b").succeeded()).isEqualTo(2);
  }

  @Test
  void aTransportLimitBelowOneSendsOneRowPerCall() {
    TestTransport a = TestTransport.accepting("a", 0);
    SendOutcome outcome = sender(a).send(claim(row(1, "a", "x"), row(2, "a", "x")));

    assertThat(a.calls).extracting(Call::ids).containsExactly(List.of(1L), List.of(2L));
    assertThat(ids(outcome.accepted())).containsExactly(1L, 2L);
  }

  @Test
  void aCallPastTheSendTimeoutIsInterruptedAndItsRowsFailAsTimedOut() throws Exception {
    CountDownLatch interrupted = new CountDownLatch(1);
    TestTransport stuck =
        new TestTransport(
            "a",
            10,
            batch -> {
              try {
                new CountDownLatch(1).await();
              } catch (InterruptedException e) {
                interrupted.countDown();
                throw e;
              }
              return List.of();
            });
    TestTransport healthy = TestTransport.accepting("b", 10);
    Sender sender = sender(stuck, healthy);

    long started = System.nanoTime();
    SendOutcome outcome = sender.send(claim(row(1, "a", "x"), row(2, "a", "x"), row(3, "b", "x")));
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(took).isGreaterThanOrEqualTo(SEND_TIMEOUT).isLessThan(Duration.ofSeconds(5));
    assertThat(interrupted.await(5, TimeUnit.SECONDS))
        .as("the stuck call was interrupted")
        .isTrue();
    assertThat(failedIds(outcome)).containsExactly(1L, 2L);
    assertThat(outcome.failed())
        .allSatisfy(
            f -> {
              assertThat(f.reason()).isEqualTo(SendFailure.TIMED_OUT);
              assertThat(f.kind()).isEqualTo(FailureKind.TIMEOUT);
              assertThat(f.permanent()).isFalse();
              assertThat(f.error())
                  .isEqualTo("send to 'x' timed out after " + Durations.format(SEND_TIMEOUT));
            });
    // The route after the stuck one still went out.
    assertThat(ids(outcome.accepted())).containsExactly(3L);
    assertThat(batchesSent)
        .extracting(SendBatch::transport, SendBatch::accepted, SendBatch::outcome)
        .containsExactly(
            tuple("a", 0, SendBatch.Outcome.TIMEOUT), tuple("b", 1, SendBatch.Outcome.SUCCESS));
    TransportSends sends = sender.sends().lastMinute().get("a");
    assertThat(sends.failed()).isEqualTo(2);
    assertThat(sends.failingSince()).isPresent();
  }

  @Test
  void aTransportThatThrowsInvalidInputRejectsEveryRowOfItsBatch() {
    InvalidInputException thrown = new InvalidInputException("header 'x' is too long");
    TestTransport a =
        new TestTransport(
            "a",
            10,
            batch -> {
              throw thrown;
            });

    SendOutcome outcome = sender(a).send(claim(row(1, "a", "x"), row(2, "a", "x")));

    assertThat(failedIds(outcome)).containsExactly(1L, 2L);
    assertThat(outcome.failed())
        .allSatisfy(
            f -> {
              assertThat(f.reason()).isEqualTo(SendFailure.REJECTED);
              assertThat(f.permanent()).isTrue();
              assertThat(f.kind()).isEqualTo(FailureKind.PERMANENT);
              assertThat(f.error()).isEqualTo(SendResult.describe(thrown));
            });
    assertThat(outcome.accepted()).isEmpty();
    assertThat(batchesSent)
        .extracting(SendBatch::outcome)
        .containsExactly(SendBatch.Outcome.FAILURE);
  }

  @Test
  void aTransportThatThrowsAnythingElseFailsEveryRowOfItsBatchForARetry() {
    TestTransport a =
        new TestTransport(
            "a",
            10,
            batch -> {
              throw new IOException("broker down");
            });

    SendOutcome outcome = sender(a).send(claim(row(1, "a", "x"), row(2, "a", "x")));

    assertThat(failedIds(outcome)).containsExactly(1L, 2L);
    assertThat(outcome.failed())
        .allSatisfy(
            f -> {
              assertThat(f.reason()).isEqualTo(SendFailure.SEND_FAILED);
              assertThat(f.permanent()).isFalse();
              assertThat(f.kind()).isEqualTo(FailureKind.TRANSIENT);
              assertThat(f.error()).isEqualTo("java.io.IOException: broker down");
            });
    assertThat(outcome.accepted()).isEmpty();
  }

  @Test
  void aWrongNumberOfResultsFailsEveryRowOfItsBatch() {
    TestTransport tooFew = new TestTransport("a", 10, batch -> List.of(SendResult.accepted()));
    TestTransport none = new TestTransport("b", 10, batch -> null);
    Sender sender = sender(tooFew, none);

    SendOutcome outcome =
        sender.send(claim(row(1, "a", "x"), row(2, "a", "x"), row(3, "b", "x"), row(4, "b", "x")));

    assertThat(outcome.accepted()).isEmpty();
    assertThat(outcome.failed())
        .extracting(f -> f.message().id(), SendOutcome.Failure::reason, SendOutcome.Failure::error)
        .containsExactly(
            tuple(1L, SendFailure.SEND_FAILED, "transport 'a' returned 1 results for 2 messages"),
            tuple(2L, SendFailure.SEND_FAILED, "transport 'a' returned 1 results for 2 messages"),
            tuple(3L, SendFailure.SEND_FAILED, "transport 'b' returned no results for 2 messages"),
            tuple(4L, SendFailure.SEND_FAILED, "transport 'b' returned no results for 2 messages"));
  }

  @Test
  void eachRowOfABatchTakesItsOwnResult() {
    TestTransport a =
        new TestTransport(
            "a",
            10,
            batch ->
                Arrays.asList(
                    SendResult.accepted(),
                    SendResult.failed("queue full"),
                    SendResult.rejected("message too large"),
                    null));

    SendOutcome outcome =
        sender(a)
            .send(claim(row(1, "a", "x"), row(2, "a", "x"), row(3, "a", "x"), row(4, "a", "x")));

    assertThat(ids(outcome.accepted())).containsExactly(1L);
    assertThat(outcome.failed())
        .extracting(
            f -> f.message().id(),
            SendOutcome.Failure::reason,
            SendOutcome.Failure::error,
            SendOutcome.Failure::kind)
        .containsExactly(
            tuple(2L, SendFailure.SEND_FAILED, "queue full", FailureKind.TRANSIENT),
            tuple(3L, SendFailure.REJECTED, "message too large", FailureKind.PERMANENT),
            tuple(
                4L,
                SendFailure.SEND_FAILED,
                "transport returned no result",
                FailureKind.TRANSIENT));
    assertThat(batchesSent)
        .extracting(SendBatch::size, SendBatch::accepted, SendBatch::outcome)
        .containsExactly(tuple(4, 1, SendBatch.Outcome.PARTIAL));
  }

  @Test
  void rowsNamingAnUnknownTransportFailWithoutACallOrASendCounted() {
    TestTransport a = TestTransport.accepting("a", 10);
    Sender sender = sender(a);

    SendOutcome outcome =
        sender.send(claim(row(1, "nope", "x"), row(2, "a", "x"), row(3, "nope", "x")));

    assertThat(ids(outcome.accepted())).containsExactly(2L);
    assertThat(outcome.failed())
        .extracting(f -> f.message().id(), SendOutcome.Failure::reason, SendOutcome.Failure::error)
        .containsExactly(
            tuple(1L, SendFailure.UNKNOWN_TRANSPORT, "unknown transport 'nope'"),
            tuple(3L, SendFailure.UNKNOWN_TRANSPORT, "unknown transport 'nope'"));
    assertThat(a.calls).extracting(Call::ids).containsExactly(List.of(2L));
    assertThat(sender.sends().lastMinute()).containsOnlyKeys("a");
  }

  @Test
  void rowsPastMaxAttemptsAreExhaustedAndNotSent() {
    TestTransport a = TestTransport.accepting("a", 10);

    SendOutcome outcome =
        sender(a).send(claim(row(1, "a", "x", MAX_ATTEMPTS), row(2, "a", "x", MAX_ATTEMPTS + 1)));

    assertThat(ids(outcome.accepted())).containsExactly(1L);
    assertThat(ids(outcome.exhausted())).containsExactly(2L);
    assertThat(a.calls).extracting(Call::ids).containsExactly(List.of(1L));
  }

  @Test
  void noBatchStartsOnceTheClaimsLastStartHasPassed() {
    ManualClock clock = new ManualClock();
    Instant expiresAt = NOW.plus(Duration.ofSeconds(10));
    // The first call takes the clock past the claim's last start.
    TestTransport a =
        new TestTransport(
            "a",
            2,
            batch -> {
              clock.now.set(expiresAt.minus(SEND_TIMEOUT).plusMillis(1));
              return batch.messages().stream().map(m -> SendResult.accepted()).toList();
            });
    Sender sender = sender(clock, a);
    Claim claim =
        claim(
            expiresAt,
            row(1, "a", "x"),
            row(2, "a", "x"),
            row(3, "a", "x"),
            row(4, "a", "y"),
            row(5, "a", "x"));

    assertThat(sender.lastStart(claim)).isEqualTo(expiresAt.minus(SEND_TIMEOUT));
    SendOutcome outcome = sender.send(claim);

    assertThat(a.calls).extracting(Call::ids).containsExactly(List.of(1L, 2L));
    assertThat(ids(outcome.accepted())).containsExactly(1L, 2L);
    assertThat(ids(outcome.notAttempted())).containsExactly(3L, 5L, 4L);
    assertThat(outcome.failed()).isEmpty();
  }

  @Test
  void sendBatchSendsTheRowsAsGivenInOneCall() {
    TestTransport a = TestTransport.accepting("a", 10);
    Sender sender = sender(a);

    SendOutcome outcome =
        sender.sendBatch(a, "x", List.of(row(3, "a", "x"), row(1, "a", "x"), row(2, "a", "x")));

    assertThat(a.calls).extracting(Call::ids).containsExactly(List.of(3L, 1L, 2L));
    assertThat(ids(outcome.accepted())).containsExactly(3L, 1L, 2L);
    assertThat(sender.sends().lastMinute().get("a").succeeded()).isEqualTo(3);
  }
}
