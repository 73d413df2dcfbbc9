package dev.relayer.it;

/**
 * A stalled NATS JetStream in every build: the server of {@code RELAYER_NATS_URL} behind a local
 * TCP proxy that keeps the connections open but lets no byte cross, so no publish is acknowledged
 * and every send times out, until the network heals. The same set-up as the ten-minute stall, with
 * the quick run's timings: timeouts while every send fails are an outage, not poison.
 */
class NatsStallIT extends NatsStallSoakIT {

  @Override
  protected OutageRun run() {
    return OutageRun.quick();
  }
}
