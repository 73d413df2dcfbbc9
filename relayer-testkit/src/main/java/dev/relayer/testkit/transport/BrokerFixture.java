package dev.relayer.testkit.transport;

import dev.relayer.api.spi.Transport;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/**
 * A real broker as {@link TransportContract} uses it: transports connected to it, fresh
 * destinations on it, and a real consumer that reads back what was sent.
 */
public interface BrokerFixture {

  /** A new transport connected to this broker. The suite closes it. */
  Transport openTransport() throws Exception;

  /**
   * A fresh destination, unique to the calling test, whose messages the broker keeps until {@link
   * #consume} reads them. Order is kept on it (one queue, one stream, one partition).
   */
  String createDestination() throws Exception;

  /**
   * A fresh destination on which the broker rejects, one by one, messages whose body is longer than
   * {@code maxBodyBytes}, and keeps shorter ones (for example a queue with a byte limit that
   * rejects publishes, a stream with a maximum message size, a topic with {@code
   * max.message.bytes}).
   */
  String createDestinationRejectingBodiesOver(int maxBodyBytes) throws Exception;

  /** A destination nothing routes to: the broker takes no message sent there. */
  String unroutableDestination() throws Exception;

  /**
   * Reads the destination with a real consumer of the broker until {@code enough} holds for what
   * arrived so far or {@code timeout} passed, and returns the messages in the order the consumer
   * saw them. Reading may be destructive (a queue consumer acknowledges): the suite reads each
   * destination once.
   */
  List<ConsumedMessage> consumeUntil(
      String destination, Predicate<List<ConsumedMessage>> enough, Duration timeout)
      throws Exception;

  /** {@link #consumeUntil} at least {@code expected} messages. */
  default List<ConsumedMessage> consume(String destination, int expected, Duration timeout)
      throws Exception {
    return consumeUntil(destination, received -> received.size() >= expected, timeout);
  }
}
