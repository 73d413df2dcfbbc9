package dev.relayer.testkit.transport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.RelayerHeaders;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The contract every {@link Transport} passes against its real broker. Extend it in the transport
 * module's integration test ({@code *IT}) and supply the fixtures; see the package documentation
 * for what is checked. The class uses one test instance per class, so subclasses may start brokers
 * in a non-static {@code @BeforeAll} and stop them in {@code @AfterAll}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class TransportContract {

  /** Body size above which {@link BrokerFixture#createDestinationRejectingBodiesOver} rejects. */
  protected static final int MAX_BODY_BYTES = 4 * 1024;

  private final List<Transport> opened = new ArrayList<>();

  /** The broker the everyday tests use; it is never stopped. */
  protected abstract BrokerFixture broker();

  /** The broker the restart test stops and starts; may be private to the test class. */
  protected abstract RestartableBrokerFixture restartableBroker();

  /** A transport configured for an address where no broker listens. The suite closes it. */
  protected abstract Transport openUnreachableTransport() throws Exception;

  /** Text that errors of {@link #openUnreachableTransport()} must contain, e.g. its host:port. */
  protected abstract String unreachableAddress();

  /**
   * A destination the broker's naming rules forbid, which the transport must reject for good (an
   * {@link InvalidInputException} from {@code send}, or every message {@link
   * SendResult#rejected(String) rejected}) and report from {@link Transport#problems}.
   */
  protected abstract String malformedDestination();

  /**
   * Whether the transport reports a message sent to {@link BrokerFixture#unroutableDestination()}
   * as rejected for good ({@code true}) or as a failure to retry ({@code false}).
   */
  protected abstract boolean rejectsUnroutableForGood();

  /**
   * Whether the transport reports a message refused by {@link
   * BrokerFixture#createDestinationRejectingBodiesOver} as rejected for good ({@code true}: the
   * broker will never take a body that large there) or as a failure to retry ({@code false}: for
   * example a full queue, which may drain).
   */
  protected abstract boolean rejectsOversizedBodiesForGood();

  /** The timeout the suite gives an ordinary batch. Default 10 s. */
  protected Duration batchTimeout() {
    return Duration.ofSeconds(10);
  }

  /**
   * The timeout the suite gives a batch it expects to fail because the broker is gone. Default 3 s.
   */
  protected Duration outageBatchTimeout() {
    return Duration.ofSeconds(3);
  }

  /** How far past its timeout a batch may return before the suite calls it a hang. Default 2 s. */
  protected Duration timeoutSlack() {
    return Duration.ofSeconds(2);
  }

  /** How long the suite waits for a restarted broker to take messages again. Default 60 s. */
  protected Duration recoveryTimeout() {
    return Duration.ofSeconds(60);
  }

  @AfterEach
  void closeTransports() throws Exception {
    for (Transport transport : opened) {
      transport.close();
    }
    opened.clear();
  }

  @Test
  void sendsABatchAndReportsEveryMessageAccepted() throws Exception {
    Transport transport = open(broker().openTransport());
    assertThat(transport.name()).isNotBlank();
    assertThat(transport.maxBatchSize()).isPositive();
    String destination = broker().createDestination();
    List<OutgoingMessage> batch = messages(Math.min(transport.maxBatchSize(), 200));

    Outcome outcome = send(transport, destination, batch, batchTimeout());

    outcome.assertResults(batch.size(), Set.of());
    List<ConsumedMessage> consumed = broker().consume(destination, batch.size(), batchTimeout());
    assertThat(receivedIds(consumed)).containsExactlyInAnyOrderElementsOf(sentIds(batch));
  }

  @Test
  void sendsBatchesFromSeveralThreadsAtOnce() throws Exception {
    Transport transport = open(broker().openTransport());
    String destination = broker().createDestination();
    int threads = 4;
    int batchesPerThread = 5;
    int batchSize = Math.min(transport.maxBatchSize(), 20);
    AtomicInteger threadNumber = new AtomicInteger();
    ExecutorService senders =
        Executors.newFixedThreadPool(
            threads,
            task -> new Thread(task, "relayer-contract-sender-" + threadNumber.incrementAndGet()));
    List<OutgoingMessage> sent = new ArrayList<>();
    try {
      List<Future<List<OutgoingMessage>>> perThread = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        perThread.add(
            senders.submit(
                () -> {
                  List<OutgoingMessage> mine = new ArrayList<>();
                  for (int b = 0; b < batchesPerThread; b++) {
                    List<OutgoingMessage> batch = messages(batchSize);
                    send(transport, destination, batch, batchTimeout())
                        .assertResults(batchSize, Set.of());
                    mine.addAll(batch);
                  }
                  return mine;
                }));
      }
      for (Future<List<OutgoingMessage>> future : perThread) {
        sent.addAll(future.get(recoveryTimeout().toMillis(), TimeUnit.MILLISECONDS));
      }
    } finally {
      senders.shutdownNow();
      senders.awaitTermination(10, TimeUnit.SECONDS);
    }

    List<ConsumedMessage> consumed = broker().consume(destination, sent.size(), batchTimeout());
    assertThat(receivedIds(consumed)).containsExactlyInAnyOrderElementsOf(sentIds(sent));
  }

  @Test
  void anEmptyBatchHasNoResults() throws Exception {
    Transport transport = open(broker().openTransport());

    Outcome outcome = send(transport, broker().createDestination(), List.of(), batchTimeout());

    outcome.assertResults(0, Set.of());
  }

  @Test
  void carriesIdTypeHeadersAndBodyToARealConsumer() throws Exception {
    Transport transport = open(broker().openTransport());
    String destination = broker().createDestination();
    byte[] body = new byte[256];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) i;
    }
    Map<String, String> headers =
        Map.of(
            "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "tracestate", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
            "baggage", "tenant=acme,region=eu%20west",
            "x-tenant", "acme",
            "x-spaces", "a value with spaces");
    OutgoingMessage message =
        new OutgoingMessage(UUID.randomUUID(), "order.created.v1", headers, body, null, null);

    send(transport, destination, List.of(message), batchTimeout()).assertResults(1, Set.of());

    List<ConsumedMessage> consumed = broker().consume(destination, 1, batchTimeout());
    assertThat(consumed).hasSize(1);
    ConsumedMessage received = consumed.get(0);
    assertThat(received.messageId()).isEqualTo(message.messageId().toString());
    assertThat(received.messageType()).isEqualTo("order.created.v1");
    assertThat(received.headers()).containsAllEntriesOf(headers);
    // The W3C trace context, as relayer-opentelemetry writes it, arrives as it was sent.
    assertThat(received.headers().get("traceparent")).isEqualTo(headers.get("traceparent"));
    assertThat(received.headers().get("tracestate")).isEqualTo(headers.get("tracestate"));
    assertThat(received.body()).isEqualTo(body);
  }

  @Test
  void carriesTheTenantInItsHeaderToARealConsumer() throws Exception {
    Transport transport = open(broker().openTransport());
    String destination = broker().createDestination();
    OutgoingMessage message =
        new OutgoingMessage(
            UUID.randomUUID(),
            "order.created.v1",
            Map.of("x-seq", "1"),
            "tenant".getBytes(UTF_8),
            null,
            "acme-eu");

    send(transport, destination, List.of(message), batchTimeout()).assertResults(1, Set.of());

    List<ConsumedMessage> consumed = broker().consume(destination, 1, batchTimeout());
    assertThat(consumed).hasSize(1);
    assertThat(consumed.get(0).headers())
        .containsEntry(RelayerHeaders.TENANT_ID, "acme-eu")
        .containsEntry("x-seq", "1");
  }

  @Test
  void aMessageWithoutATenantArrivesWithoutTheTenantHeader() throws Exception {
    Transport transport = open(broker().openTransport());
    String destination = broker().createDestination();
    // An application header of the same name does not pass for the tenant.
    OutgoingMessage message =
        new OutgoingMessage(
            UUID.randomUUID(),
            "order.created.v1",
            Map.of("x-seq", "1", RelayerHeaders.TENANT_ID, "forged"),
            "no tenant".getBytes(UTF_8),
            null,
            null);

    send(transport, destination, List.of(message), batchTimeout()).assertResults(1, Set.of());

    List<ConsumedMessage> consumed = broker().consume(destination, 1, batchTimeout());
    assertThat(consumed).hasSize(1);
    assertThat(consumed.get(0).messageId()).isEqualTo(message.messageId().toString());
    assertThat(consumed.get(0).headers())
        .containsEntry("x-seq", "1")
        .doesNotContainKey(RelayerHeaders.TENANT_ID);
  }

  @Test
  void aRejectedMessageFailsOnItsOwn() throws Exception {
    Transport transport = open(broker().openTransport());
    String destination = broker().createDestinationRejectingBodiesOver(MAX_BODY_BYTES);
    List<OutgoingMessage> batch = new ArrayList<>(messages(5));
    batch.set(2, withBody(batch.get(2), new byte[16 * MAX_BODY_BYTES]));

    Outcome outcome = send(transport, destination, batch, batchTimeout());

    assertThat(outcome.results().get(2).isPermanent())
        .as(
            "the refused message is rejected for good (error: %s)",
            outcome.results().get(2).error())
        .isEqualTo(rejectsOversizedBodiesForGood());
    if (transport.preservesBatchOrder()) {
      outcome.assertResults(5, Set.of(2, 3, 4));
      assertThat(outcome.results().subList(3, 5))
          .as("messages not sent after the refused one are retried")
          .noneMatch(SendResult::isPermanent);
      List<ConsumedMessage> consumed = broker().consume(destination, 5, Duration.ofSeconds(2));
      assertThat(receivedIds(consumed)).containsExactlyElementsOf(sentIds(batch.subList(0, 2)));
    } else {
      outcome.assertResults(5, Set.of(2));
      List<ConsumedMessage> consumed = broker().consume(destination, 4, batchTimeout());
      assertThat(receivedIds(consumed))
          .containsExactlyInAnyOrder(
              id(batch.get(0)), id(batch.get(1)), id(batch.get(3)), id(batch.get(4)));
    }
  }

  @Test
  void everyMessageToAnUnroutableDestinationFails() throws Exception {
    Transport transport = open(broker().openTransport());
    List<OutgoingMessage> batch = messages(3);

    Outcome outcome = send(transport, broker().unroutableDestination(), batch, batchTimeout());

    outcome.assertAllFailed(batch.size());
    assertThat(outcome.permanentCount())
        .as("messages rejected for good; errors: %s", outcome.errors())
        .isEqualTo(rejectsUnroutableForGood() ? batch.size() : 0);
  }

  @Test
  void aMalformedDestinationIsRejectedForGoodAndReportedAsAProblem() throws Exception {
    Transport transport = open(broker().openTransport());
    List<OutgoingMessage> batch = messages(3);

    Outcome outcome = send(transport, malformedDestination(), batch, batchTimeout());

    outcome.assertAllFailed(batch.size());
    assertThat(outcome.permanentCount())
        .as("messages rejected for good; errors: %s", outcome.errors())
        .isEqualTo(batch.size());
    assertThat(transport.problems(malformedDestination(), batch.get(0)))
        .isNotEmpty()
        .allSatisfy(problem -> assertThat(problem).contains("destination"));
  }

  @Test
  void ordinaryMessagesHaveNoProblems() throws Exception {
    Transport transport = open(broker().openTransport());
    String destination = broker().createDestination();

    for (OutgoingMessage message : messages(3)) {
      assertThat(transport.problems(destination, message)).isEmpty();
    }
  }

  @Test
  void keepsBatchOrderWhenItDeclaresIt() throws Exception {
    Transport transport = open(broker().openTransport());
    assumeTrue(transport.preservesBatchOrder(), "the transport does not declare batch order");
    String destination = broker().createDestination();
    List<OutgoingMessage> batch = messages(Math.min(transport.maxBatchSize(), 50));

    send(transport, destination, batch, batchTimeout()).assertResults(batch.size(), Set.of());

    List<ConsumedMessage> consumed = broker().consume(destination, batch.size(), batchTimeout());
    assertThat(receivedIds(consumed)).containsExactlyElementsOf(sentIds(batch));
  }

  @Test
  void anUnreachableBrokerFailsTheBatchWithinItsTimeoutNamingTheBroker() throws Exception {
    Transport transport = open(openUnreachableTransport());
    String destination = broker().createDestination();

    for (int attempt = 1; attempt <= 2; attempt++) {
      Outcome outcome = send(transport, destination, messages(3), outageBatchTimeout());

      outcome.assertAllFailed(3);
      outcome.assertWithin(outageBatchTimeout().plus(timeoutSlack()));
      assertThat(outcome.permanentCount()).as("an unreachable broker is retried").isZero();
      assertThat(outcome.results())
          .as("attempt %d: nothing reached the broker, so no attempt is spent", attempt)
          .allMatch(SendResult::isUnavailable);
      assertThat(outcome.errors())
          .as("attempt %d: errors name the broker", attempt)
          .allSatisfy(error -> assertThat(error).contains(unreachableAddress()));
    }
  }

  @Test
  void recoversWhenTheBrokerComesBack() throws Exception {
    RestartableBrokerFixture fixture = restartableBroker();
    Transport transport = open(fixture.openTransport());
    String destination = fixture.createDestination();
    List<OutgoingMessage> before = messages(3);
    send(transport, destination, before, batchTimeout()).assertResults(3, Set.of());

    fixture.stop();
    try {
      for (int attempt = 1; attempt <= 2; attempt++) {
        Outcome during = send(transport, destination, messages(3), outageBatchTimeout());
        assertThat(during.acceptedCount())
            .as("attempt %d while the broker is down: accepted messages", attempt)
            .isZero();
        during.assertWithin(outageBatchTimeout().plus(timeoutSlack()));
        assertThat(during.errors()).allSatisfy(error -> assertThat(error).isNotBlank());
        assertThat(during.permanentCount())
            .as("attempt %d while the broker is down: rejected for good", attempt)
            .isZero();
      }
    } finally {
      fixture.start();
    }

    List<OutgoingMessage> after = null;
    Outcome last = null;
    long deadline = System.nanoTime() + recoveryTimeout().toNanos();
    while (System.nanoTime() < deadline) {
      List<OutgoingMessage> batch = messages(3);
      last = send(transport, destination, batch, batchTimeout());
      if (last.acceptedCount() == batch.size()) {
        after = batch;
        break;
      }
      Thread.sleep(250);
    }
    if (after == null) {
      fail(
          "the transport did not send again within %s after the broker came back; last errors: %s",
          recoveryTimeout(), last == null ? "none" : last.errors());
    }

    // Batches reported failed during the outage may still arrive (at least once): read until both
    // the batch before and the batch after the outage are there.
    Set<String> wanted = new HashSet<>(sentIds(before));
    wanted.addAll(sentIds(after));
    List<ConsumedMessage> consumed =
        fixture.consumeUntil(
            destination, received -> receivedIds(received).containsAll(wanted), batchTimeout());
    assertThat(receivedIds(consumed)).containsAll(wanted);
  }

  @Test
  void closeDeliversWhatWasAcceptedIsSafeTwiceAndThenFailsBatches() throws Exception {
    Transport transport = broker().openTransport();
    String destination = broker().createDestination();
    List<OutgoingMessage> batch = messages(10);
    Outcome outcome;
    try {
      outcome = send(transport, destination, batch, batchTimeout());
    } finally {
      transport.close();
    }
    transport.close();

    outcome.assertResults(batch.size(), Set.of());
    List<ConsumedMessage> consumed = broker().consume(destination, batch.size(), batchTimeout());
    assertThat(receivedIds(consumed)).containsExactlyInAnyOrderElementsOf(sentIds(batch));

    Outcome afterClose = send(transport, destination, messages(2), outageBatchTimeout());
    afterClose.assertAllFailed(2);
    afterClose.assertWithin(outageBatchTimeout().plus(timeoutSlack()));
  }

  // ---------------------------------------------------------------------------------------------

  /** Registers {@code transport} to be closed after the test. */
  protected final Transport open(Transport transport) {
    opened.add(transport);
    return transport;
  }

  /** {@code count} unordered messages with distinct ids, small bodies and a traceparent header. */
  protected static List<OutgoingMessage> messages(int count) {
    String run = UUID.randomUUID().toString().substring(0, 8);
    return IntStream.range(0, count)
        .mapToObj(
            i ->
                new OutgoingMessage(
                    UUID.randomUUID(),
                    "contract.test",
                    Map.of(
                        "traceparent",
                        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                        "x-seq",
                        Integer.toString(i)),
                    ("message " + i + " of run " + run).getBytes(UTF_8),
                    null,
                    null))
        .collect(Collectors.toList());
  }

  private static OutgoingMessage withBody(OutgoingMessage message, byte[] body) {
    Arrays.fill(body, (byte) 'x');
    return new OutgoingMessage(
        message.messageId(),
        message.messageType(),
        message.headers(),
        body,
        message.orderingKey(),
        message.tenantId());
  }

  private static String id(OutgoingMessage message) {
    return message.messageId().toString();
  }

  private static List<String> sentIds(Collection<OutgoingMessage> messages) {
    return messages.stream().map(TransportContract::id).collect(Collectors.toList());
  }

  private static List<String> receivedIds(List<ConsumedMessage> messages) {
    return messages.stream().map(ConsumedMessage::messageId).collect(Collectors.toList());
  }

  /**
   * Sends one batch and records what came back, thrown exception included, and how long it took.
   */
  protected static Outcome send(
      Transport transport, String destination, List<OutgoingMessage> messages, Duration timeout) {
    long start = System.nanoTime();
    try {
      List<SendResult> results = transport.send(new TransportBatch(destination, messages, timeout));
      return new Outcome(
          messages.size(), results, null, Duration.ofNanos(System.nanoTime() - start));
    } catch (Exception e) {
      return new Outcome(
          messages.size(), List.of(), e, Duration.ofNanos(System.nanoTime() - start));
    }
  }

  /**
   * What one {@code send} did: the results it returned or the exception it threw (which fails every
   * message), and how long it took.
   */
  protected record Outcome(
      int size, List<SendResult> results, @Nullable Exception thrown, Duration elapsed) {

    /** One error text per failed message; the exception's description for each when it threw. */
    public List<String> errors() {
      if (thrown != null) {
        return Collections.nCopies(size, SendResult.describe(thrown));
      }
      return results.stream()
          .filter(result -> !result.isAccepted())
          .map(SendResult::error)
          .collect(Collectors.toList());
    }

    /**
     * Messages rejected for good: every message when {@code send} threw {@link
     * InvalidInputException}, else those whose result {@link SendResult#isPermanent()}.
     */
    public long permanentCount() {
      if (thrown != null) {
        return thrown instanceof InvalidInputException ? size : 0;
      }
      return results.stream().filter(SendResult::isPermanent).count();
    }

    public long acceptedCount() {
      return thrown != null ? 0 : results.stream().filter(SendResult::isAccepted).count();
    }

    /** Returned normally with {@code size} results; exactly those at {@code failed} failed. */
    public void assertResults(int expectedSize, Set<Integer> failed) {
      if (thrown != null) {
        throw new AssertionError("send threw instead of returning results", thrown);
      }
      assertThat(results).as("one result per message").hasSize(expectedSize);
      for (int i = 0; i < expectedSize; i++) {
        SendResult result = results.get(i);
        if (failed.contains(i)) {
          assertThat(result.isAccepted()).as("message %d is reported failed", i).isFalse();
          assertThat(result.error()).as("error of message %d", i).isNotBlank();
        } else {
          assertThat(result.isAccepted())
              .as("message %d is reported accepted (error: %s)", i, result.error())
              .isTrue();
        }
      }
    }

    /** Threw, or returned {@code size} results all failed with a non-blank error. */
    public void assertAllFailed(int expectedSize) {
      if (thrown == null) {
        assertThat(results).as("one result per message").hasSize(expectedSize);
        assertThat(acceptedCount()).as("accepted messages").isZero();
      } else {
        assertThat(SendResult.describe(thrown)).isNotBlank();
      }
      assertThat(errors()).hasSize(expectedSize).allSatisfy(e -> assertThat(e).isNotBlank());
    }

    public void assertWithin(Duration limit) {
      assertThat(elapsed).as("time the batch took").isLessThanOrEqualTo(limit);
    }
  }
}
