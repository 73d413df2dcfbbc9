package dev.relayer.bench.relayer;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.bench.Payload;
import dev.relayer.bench.pipeline.DeliveryProbe;
import java.util.ArrayList;
import java.util.List;

/**
 * Relayer's no-op sink for the benchmarks: a transport named {@value Payload#TRANSPORT} that
 * accepts every message and only reports it to a {@link DeliveryProbe}, reading the benchmark's
 * sequence number from the {@value #SEQ_HEADER} header (untimed when absent). Unlike the in-memory
 * transport it keeps nothing, so heap figures show Relayer's own footprint.
 */
public final class ProbeTransport implements Transport {

  /** Header carrying the benchmark's sequence number of a timed message. */
  public static final String SEQ_HEADER = "bench-seq";

  private final DeliveryProbe probe;
  private final int maxBatchSize;
  private final boolean preservesBatchOrder;

  /**
   * A transport that reports to {@code probe} and takes at most {@code maxBatchSize} messages per
   * call.
   */
  public ProbeTransport(DeliveryProbe probe, int maxBatchSize) {
    this(probe, maxBatchSize, false);
  }

  /**
   * As {@link #ProbeTransport(DeliveryProbe, int)}; with {@code preservesBatchOrder} the transport
   * declares that it keeps batch order, so lanes may send several rows of one key in one batch (it
   * accepts every message, so it trivially stops at the first failure).
   */
  public ProbeTransport(DeliveryProbe probe, int maxBatchSize, boolean preservesBatchOrder) {
    if (maxBatchSize < 1) {
      throw new IllegalArgumentException("maxBatchSize must be at least 1, not " + maxBatchSize);
    }
    this.probe = probe;
    this.maxBatchSize = maxBatchSize;
    this.preservesBatchOrder = preservesBatchOrder;
  }

  @Override
  public boolean preservesBatchOrder() {
    return preservesBatchOrder;
  }

  @Override
  public String name() {
    return Payload.TRANSPORT;
  }

  @Override
  public int maxBatchSize() {
    return maxBatchSize;
  }

  @Override
  public List<SendResult> send(TransportBatch batch) {
    List<SendResult> results = new ArrayList<>(batch.messages().size());
    for (OutgoingMessage message : batch.messages()) {
      String seq = message.headers().get(SEQ_HEADER);
      probe.delivered(seq == null ? -1 : Long.parseLong(seq));
      results.add(SendResult.accepted());
    }
    return results;
  }

  /** Nothing to release. */
  @Override
  public void close() {}
}
