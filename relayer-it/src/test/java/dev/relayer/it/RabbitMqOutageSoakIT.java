package dev.relayer.it;

/** {@link RabbitMqOutageIT} with the default options for ten minutes; profile outage-soak. */
class RabbitMqOutageSoakIT extends RabbitMqOutageIT {

  @Override
  protected OutageRun run() {
    return OutageRun.soak();
  }
}
