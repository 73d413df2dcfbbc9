package dev.relayer.it.chaos;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Every delivery of the run's queue, in arrival order, as a real consumer of the broker sees it: a
 * {@code basicConsume} over the test's own connection (never through the cut proxy), acknowledging
 * each delivery after recording it.
 */
final class DeliveryLog implements AutoCloseable {

  /** One delivery: its position in arrival order, the message id, type and ordering key. */
  record Delivery(int position, UUID messageId, String messageType, String orderingKey) {}

  private final List<Delivery> deliveries = new ArrayList<>();
  private final Channel channel;
  private volatile long lastArrivalNanos = System.nanoTime();

  private DeliveryLog(Channel channel) {
    this.channel = channel;
  }

  static DeliveryLog consume(Connection connection, String queue) throws IOException {
    Channel channel = connection.createChannel();
    channel.basicQos(1_000);
    DeliveryLog log = new DeliveryLog(channel);
    channel.basicConsume(
        queue,
        false,
        (tag, delivery) -> {
          Map<String, Object> headers = delivery.getProperties().getHeaders();
          Object key = headers == null ? null : headers.get(ChaosTables.KEY_HEADER);
          log.record(
              UUID.fromString(delivery.getProperties().getMessageId()),
              delivery.getProperties().getType(),
              key == null ? null : key.toString());
          channel.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
        },
        tag -> {});
    return log;
  }

  private synchronized void record(UUID messageId, String type, String key) {
    deliveries.add(new Delivery(deliveries.size(), messageId, type, key));
    lastArrivalNanos = System.nanoTime();
  }

  synchronized List<Delivery> snapshot() {
    return List.copyOf(deliveries);
  }

  synchronized int size() {
    return deliveries.size();
  }

  /** Nanos ({@link System#nanoTime()}) of the latest delivery, or of the log's creation. */
  long lastArrivalNanos() {
    return lastArrivalNanos;
  }

  @Override
  public void close() throws Exception {
    if (channel.isOpen()) {
      channel.close();
    }
  }
}
