package dev.relayer.api.spi;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Messages that go to one destination in one call.
 *
 * @param destination transport-specific address (exchange and routing key, topic, subject)
 * @param messages at most {@link Transport#maxBatchSize()} messages, in outbox id order
 * @param timeout how long the transport may take for the whole batch; a transport must fail the
 *     rest of the batch rather than block past it, because the rows' claims expire soon after
 */
public record TransportBatch(String destination, List<OutgoingMessage> messages, Duration timeout) {

  public TransportBatch {
    Objects.requireNonNull(destination, "destination");
    messages = List.copyOf(messages);
    Objects.requireNonNull(timeout, "timeout");
  }
}
