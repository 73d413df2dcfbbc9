package dev.relayer.it;

/** {@link RabbitMqStallIT} with the default options for ten minutes; profile outage-soak. */
class RabbitMqStallSoakIT extends RabbitMqStallIT {

  @Override
  protected OutageRun run() {
    return OutageRun.soak();
  }
}
