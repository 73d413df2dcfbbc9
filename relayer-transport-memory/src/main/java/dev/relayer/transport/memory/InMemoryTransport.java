package dev.relayer.transport.memory;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A transport that keeps what it is sent in memory, for tests and for trying Relayer without a
 * broker. It records every message it accepted (and every attempt, accepted or not), and can be
 * scripted to reject messages (for now or for good), to refuse messages at enqueue, to fail whole
 * batches, or to hang past the claim.
 *
 * <p>Thread-safe. Scripts apply to every later call until changed.
 */
public final class InMemoryTransport implements Transport {

  /** One message the transport accepted. */
  public record Delivery(String destination, OutgoingMessage message, Instant at) {}

  private final String name;
  private final int maxBatchSize;
  private final boolean preservesBatchOrder;
  private final List<Delivery> deliveries = new CopyOnWriteArrayList<>();
  private final List<Delivery> attempts = new CopyOnWriteArrayList<>();
  private final AtomicInteger batches = new AtomicInteger();
  private static final Rejection NONE = new Rejection(message -> false, "", false);

  /** Which messages fail, with what error, and whether for good. */
  private record Rejection(Predicate<OutgoingMessage> matches, String error, boolean permanent) {}

  private volatile Rejection rejection = NONE;
  private volatile Predicate<OutgoingMessage> forbidden = message -> false;
  private volatile String forbiddenProblem = "forbidden by InMemoryTransport";
  private volatile @Nullable RuntimeException batchFailure;
  private volatile Duration hang = Duration.ZERO;
  private volatile @Nullable CountDownLatch gate;

  private InMemoryTransport(String name, int maxBatchSize, boolean preservesBatchOrder) {
    List<String> problems = new ArrayList<>();
    if (name == null || name.isBlank()) {
      problems.add("transport name must not be blank");
    }
    if (maxBatchSize < 1) {
      problems.add("maxBatchSize must be at least 1, was " + maxBatchSize);
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
    this.name = name;
    this.maxBatchSize = maxBatchSize;
    this.preservesBatchOrder = preservesBatchOrder;
  }

  /**
   * A transport named {@code name} taking up to 100 messages per batch, answering per message (one
   * rejected message does not fail its neighbours; no batch-order guarantee).
   */
  public static InMemoryTransport named(String name) {
    return new InMemoryTransport(name, 100, false);
  }

  /** A transport with the given native batch limit and batch-order capability. */
  public static InMemoryTransport of(String name, int maxBatchSize, boolean preservesBatchOrder) {
    return new InMemoryTransport(name, maxBatchSize, preservesBatchOrder);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int maxBatchSize() {
    return maxBatchSize;
  }

  /** Nothing to release; keeps what it recorded. */
  @Override
  public void close() {}

  @Override
  public boolean preservesBatchOrder() {
    return preservesBatchOrder;
  }

  /**
   * Fails every message matching {@code predicate} with {@code error} ({@link
   * SendResult#failed(String)}: retried); others are accepted.
   */
  public InMemoryTransport reject(Predicate<OutgoingMessage> predicate, String error) {
    return reject(predicate, error, false);
  }

  /**
   * Rejects every message matching {@code predicate} for good with {@code error} ({@link
   * SendResult#rejected(String)}: never retried); others are accepted.
   */
  public InMemoryTransport rejectPermanently(Predicate<OutgoingMessage> predicate, String error) {
    return reject(predicate, error, true);
  }

  private InMemoryTransport reject(
      Predicate<OutgoingMessage> predicate, String error, boolean permanently) {
    this.rejection =
        new Rejection(
            Objects.requireNonNull(predicate, "predicate"),
            Objects.requireNonNull(error, "error"),
            permanently);
    return this;
  }

  /**
   * Reports {@code problem} from {@link #problems} for every message matching {@code predicate}, so
   * that a dispatcher refuses it at enqueue, and rejects such messages for good if they are sent
   * anyway. Cleared by {@link #behaveNormally()}.
   */
  public InMemoryTransport forbid(Predicate<OutgoingMessage> predicate, String problem) {
    this.forbiddenProblem = Objects.requireNonNull(problem, "problem");
    this.forbidden = Objects.requireNonNull(predicate, "predicate");
    return this;
  }

  @Override
  public List<String> problems(String destination, OutgoingMessage message) {
    return forbidden.test(message) ? List.of(forbiddenProblem) : List.of();
  }

  /** Accepts only messages matching {@code predicate}; the others fail. */
  public InMemoryTransport acceptOnly(Predicate<OutgoingMessage> predicate) {
    return reject(predicate.negate(), "not accepted by InMemoryTransport");
  }

  /** Throws {@code failure} from every batch (null to stop). */
  public InMemoryTransport failBatches(@Nullable RuntimeException failure) {
    this.batchFailure = failure;
    return this;
  }

  /** Sleeps this long in every call before answering (zero to stop): simulates a hung broker. */
  public InMemoryTransport hang(Duration duration) {
    this.hang = Objects.requireNonNull(duration, "duration");
    return this;
  }

  /** Blocks every call until {@link #openGate()} — to hold sends in flight. */
  public InMemoryTransport closeGate() {
    this.gate = new CountDownLatch(1);
    return this;
  }

  /** Releases calls blocked by {@link #closeGate()}. */
  public InMemoryTransport openGate() {
    CountDownLatch current = gate;
    gate = null;
    if (current != null) {
      current.countDown();
    }
    return this;
  }

  /** Accepts everything again: clears rejections, forbidden messages, failures, hangs, the gate. */
  public InMemoryTransport behaveNormally() {
    rejection = NONE;
    forbidden = message -> false;
    batchFailure = null;
    hang = Duration.ZERO;
    openGate();
    return this;
  }

  @Override
  public List<SendResult> send(TransportBatch batch) throws InterruptedException {
    batches.incrementAndGet();
    CountDownLatch currentGate = gate;
    if (currentGate != null) {
      currentGate.await(5, TimeUnit.MINUTES);
    }
    Duration currentHang = hang;
    if (!currentHang.isZero()) {
      Thread.sleep(currentHang.toMillis());
    }
    RuntimeException failure = batchFailure;
    Rejection currentRejection = rejection;
    Instant now = Instant.now();
    for (OutgoingMessage message : batch.messages()) {
      attempts.add(new Delivery(batch.destination(), message, now));
    }
    if (failure != null) {
      throw failure;
    }
    List<SendResult> results = new ArrayList<>(batch.messages().size());
    boolean failed = false;
    for (OutgoingMessage message : batch.messages()) {
      if (failed && preservesBatchOrder) {
        results.add(SendResult.failed("not sent: an earlier message of the batch failed"));
      } else if (forbidden.test(message)) {
        failed = true;
        results.add(SendResult.rejected(forbiddenProblem));
      } else if (currentRejection.matches().test(message)) {
        failed = true;
        results.add(
            currentRejection.permanent()
                ? SendResult.rejected(currentRejection.error())
                : SendResult.failed(currentRejection.error()));
      } else {
        deliveries.add(new Delivery(batch.destination(), message, now));
        results.add(SendResult.accepted());
      }
    }
    return results;
  }

  /** Every accepted message, in the order accepted. */
  public List<Delivery> deliveries() {
    return List.copyOf(deliveries);
  }

  /** Every message the transport was asked to send, accepted or not. */
  public List<Delivery> attempts() {
    return List.copyOf(attempts);
  }

  /** Message ids of {@link #deliveries()}, in order. */
  public List<UUID> deliveredIds() {
    return deliveries.stream().map(d -> d.message().messageId()).toList();
  }

  /** How many {@link #send} calls were made. */
  public int batchCount() {
    return batches.get();
  }

  /** Forgets what was recorded. */
  public void clear() {
    deliveries.clear();
    attempts.clear();
    batches.set(0);
  }
}
