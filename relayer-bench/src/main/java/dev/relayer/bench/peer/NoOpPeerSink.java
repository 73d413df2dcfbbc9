package dev.relayer.bench.peer;

import dev.relayer.bench.pipeline.DeliveryProbe;

/** The peer's no-op sink: it only tells the probe that the message arrived. */
public final class NoOpPeerSink implements PeerSink {

  private final DeliveryProbe probe;

  NoOpPeerSink(DeliveryProbe probe) {
    this.probe = probe;
  }

  @Override
  public void send(long seq, String destination, String messageType, String headers, String body) {
    probe.delivered(seq);
  }
}
