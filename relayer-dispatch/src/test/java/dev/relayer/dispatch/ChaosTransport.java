package dev.relayer.dispatch;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A transport that randomly delays, throws for whole batches and rejects single messages, and
 * records every accepted message in acceptance order. With {@code preservesBatchOrder} it behaves
 * like an ordered broker: after the first rejected message of a batch, nothing more is sent.
 */
final class ChaosTransport implements Transport {

  /** One accepted message. */
  record Accepted(UUID messageId, String orderingKey) {}

  private final String name;
  private final int maxBatchSize;
  private final boolean preservesBatchOrder;
  private final double rejectRate;
  private final double throwRate;
  private final int maxDelayMillis;
  private final List<Accepted> accepted;

  /** A transport recording into its own log. */
  ChaosTransport(
      String name,
      int maxBatchSize,
      boolean preservesBatchOrder,
      double rejectRate,
      double throwRate,
      int maxDelayMillis) {
    this(
        name,
        maxBatchSize,
        preservesBatchOrder,
        rejectRate,
        throwRate,
        maxDelayMillis,
        Collections.synchronizedList(new ArrayList<>()));
  }

  /** A transport recording into {@code log}, a synchronized list it may share with others. */
  ChaosTransport(
      String name,
      int maxBatchSize,
      boolean preservesBatchOrder,
      double rejectRate,
      double throwRate,
      int maxDelayMillis,
      List<Accepted> log) {
    this.name = name;
    this.maxBatchSize = maxBatchSize;
    this.preservesBatchOrder = preservesBatchOrder;
    this.rejectRate = rejectRate;
    this.throwRate = throwRate;
    this.maxDelayMillis = maxDelayMillis;
    this.accepted = log;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int maxBatchSize() {
    return maxBatchSize;
  }

  @Override
  public boolean preservesBatchOrder() {
    return preservesBatchOrder;
  }

  @Override
  public List<SendResult> send(TransportBatch batch) throws Exception {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    if (maxDelayMillis > 0) {
      Thread.sleep(random.nextInt(maxDelayMillis + 1));
    }
    if (random.nextDouble() < throwRate) {
      throw new java.io.IOException("chaos: connection reset");
    }
    List<SendResult> results = new ArrayList<>();
    boolean stopped = false;
    for (OutgoingMessage message : batch.messages()) {
      if (stopped) {
        results.add(SendResult.failed("not sent: an earlier message of the batch failed"));
      } else if (random.nextDouble() < rejectRate) {
        results.add(SendResult.failed("chaos: rejected"));
        stopped = preservesBatchOrder;
      } else {
        accepted.add(new Accepted(message.messageId(), message.orderingKey()));
        results.add(SendResult.accepted());
      }
    }
    return results;
  }

  /** Every accepted message, in acceptance order. */
  List<Accepted> accepted() {
    synchronized (accepted) {
      return List.copyOf(accepted);
    }
  }

  /** Per key, the message ids in the order of their first acceptance. */
  static Map<String, List<UUID>> firstDeliveriesByKey(List<Accepted> accepted) {
    Map<String, List<UUID>> byKey = new LinkedHashMap<>();
    java.util.Set<UUID> seen = new java.util.HashSet<>();
    for (Accepted a : accepted) {
      if (seen.add(a.messageId())) {
        byKey.computeIfAbsent(a.orderingKey(), k -> new ArrayList<>()).add(a.messageId());
      }
    }
    return byKey;
  }
}
