package dev.relayer.it;

/**
 * A stalled Kafka in every build: a private KRaft broker whose clients go through a local TCP proxy
 * (its advertised listener) that keeps the connections open but lets no byte cross, until the
 * network heals. The same set-up as the ten-minute stall, with the quick run's timings: timeouts
 * while every send fails are an outage, not poison.
 */
class KafkaStallIT extends KafkaStallSoakIT {

  @Override
  protected OutageRun run() {
    return OutageRun.quick();
  }
}
