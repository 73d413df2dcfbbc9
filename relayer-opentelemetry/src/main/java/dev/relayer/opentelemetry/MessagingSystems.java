package dev.relayer.opentelemetry;

import dev.relayer.api.spi.Transport;

/** The {@code messaging.system} of a transport's spans. */
final class MessagingSystems {

  private MessagingSystems() {}

  /**
   * {@code rabbitmq}, {@code kafka} or {@code nats} for Relayer's own transports (known by class
   * name, so this module needs none of them); the transport's name for any other.
   */
  static String of(Transport transport) {
    return switch (transport.getClass().getName()) {
      case "dev.relayer.transport.rabbitmq.RabbitMqTransport" -> "rabbitmq";
      case "dev.relayer.transport.kafka.KafkaTransport" -> "kafka";
      case "dev.relayer.transport.nats.NatsTransport" -> "nats";
      default -> transport.name();
    };
  }
}
