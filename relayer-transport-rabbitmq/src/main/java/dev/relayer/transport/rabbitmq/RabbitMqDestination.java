package dev.relayer.transport.rabbitmq;

import dev.relayer.api.InvalidInputException;
import org.jspecify.annotations.Nullable;

/**
 * An outbox destination parsed into an exchange and a routing key: {@code exchange/routingKey},
 * split at the first {@code /}. {@code /queue} publishes through the default exchange straight to
 * {@code queue}; a destination without {@code /} names an exchange with an empty routing key (for
 * fanout exchanges). Routing keys may themselves contain {@code /}; exchange names may not.
 */
record RabbitMqDestination(String exchange, String routingKey) {

  /** AMQP 0-9-1 short strings, which carry both names, hold at most 255 bytes. */
  private static final int MAX_NAME_BYTES = 255;

  /**
   * The destination split into exchange and routing key.
   *
   * @throws InvalidInputException naming the destination when it is not one
   */
  static RabbitMqDestination parse(String destination) {
    String problem = problem(destination);
    if (problem != null) {
      throw new InvalidInputException(problem);
    }
    int slash = destination.indexOf('/');
    return slash < 0
        ? new RabbitMqDestination(destination, "")
        : new RabbitMqDestination(
            destination.substring(0, slash), destination.substring(slash + 1));
  }

  /** What makes {@code destination} unusable, as a sentence naming it, or {@code null}. */
  static @Nullable String problem(String destination) {
    if (destination.isBlank()) {
      return "destination is blank; RabbitMQ destinations are 'exchange/routingKey', 'exchange' or"
          + " '/queue' for the default exchange";
    }
    int slash = destination.indexOf('/');
    String exchange = slash < 0 ? destination : destination.substring(0, slash);
    String routingKey = slash < 0 ? "" : destination.substring(slash + 1);
    if (exchange.isEmpty() && routingKey.isEmpty()) {
      return "destination '/' names the default exchange without a routing key; write '/queue'";
    }
    if (AmqpFields.utf8Length(exchange) > MAX_NAME_BYTES) {
      return "destination '"
          + AmqpFields.abbreviate(destination)
          + "': the exchange name is longer than 255 bytes";
    }
    if (AmqpFields.utf8Length(routingKey) > MAX_NAME_BYTES) {
      return "destination '"
          + AmqpFields.abbreviate(destination)
          + "': the routing key is longer than 255 bytes";
    }
    return null;
  }

  @Override
  public String toString() {
    return "exchange '" + exchange + "', routing key '" + routingKey + "'";
  }
}
