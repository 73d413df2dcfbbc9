package dev.relayer.transport.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import dev.relayer.api.spi.Transport;
import dev.relayer.testkit.transport.ConsumedMessage;
import dev.relayer.testkit.transport.RestartableBrokerFixture;
import dev.relayer.testkit.transport.TcpProxy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The RabbitMQ named by {@value #URI_VARIABLE} (default {@value #DEFAULT_URI}). Queues are declared
 * and read over a direct connection; transports connect either directly or through a {@link
 * TcpProxy} that {@link #stop()} cuts, so that only this fixture's transports lose the broker.
 */
public final class RabbitMqFixture implements RestartableBrokerFixture, AutoCloseable {

  public static final String URI_VARIABLE = "RELAYER_RABBITMQ_URI";
  public static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672/";

  private final String brokerUri;
  private final TcpProxy proxy;
  private final Connection admin;
  private final List<String> queues = new ArrayList<>();
  private final boolean orderedBatches;

  private RabbitMqFixture(String brokerUri, TcpProxy proxy, boolean orderedBatches)
      throws Exception {
    this.brokerUri = brokerUri;
    this.orderedBatches = orderedBatches;
    this.proxy = proxy;
    ConnectionFactory factory = RabbitMqTransport.Builder.factoryFor(brokerUri);
    this.admin = factory.newConnection("relayer-it-admin");
  }

  /** The broker's URI: {@value #URI_VARIABLE}, else {@value #DEFAULT_URI}. */
  public static String brokerUri() {
    String uri = System.getenv(URI_VARIABLE);
    return uri == null || uri.isBlank() ? DEFAULT_URI : uri.trim();
  }

  /** Transports connect straight to the broker. */
  public static RabbitMqFixture direct(boolean orderedBatches) throws Exception {
    return new RabbitMqFixture(brokerUri(), null, orderedBatches);
  }

  /**
   * Transports connect through a proxy that {@link #stop()} and {@link #start()} cut and restore.
   */
  public static RabbitMqFixture proxied(boolean orderedBatches) throws Exception {
    URI uri = URI.create(brokerUri());
    int port = uri.getPort() > 0 ? uri.getPort() : 5672;
    TcpProxy proxy = TcpProxy.start(uri.getHost(), port);
    try {
      return new RabbitMqFixture(brokerUri(), proxy, orderedBatches);
    } catch (Exception e) {
      proxy.close();
      throw e;
    }
  }

  /** The URI transports of this fixture use. */
  String transportUri() {
    if (proxy == null) {
      return brokerUri;
    }
    URI uri = URI.create(brokerUri);
    return uri.getScheme()
        + "://"
        + (uri.getRawUserInfo() == null ? "" : uri.getRawUserInfo() + "@")
        + "127.0.0.1:"
        + proxy.port()
        + (uri.getRawPath() == null ? "" : uri.getRawPath());
  }

  @Override
  public Transport openTransport() {
    return RabbitMqTransport.builder()
        .uri(transportUri())
        .recoveryInterval(Duration.ofMillis(500))
        .orderedBatches(orderedBatches)
        .build();
  }

  @Override
  public String createDestination() throws Exception {
    return "/" + declareQueue(Map.of());
  }

  @Override
  public String createDestinationRejectingBodiesOver(int maxBodyBytes) throws Exception {
    return "/"
        + declareQueue(Map.of("x-max-length-bytes", maxBodyBytes, "x-overflow", "reject-publish"));
  }

  @Override
  public String unroutableDestination() {
    return "amq.direct/relayer-it-unbound-" + UUID.randomUUID();
  }

  /**
   * Declares a queue that deletes itself after half an hour without a consumer even if a test dies
   * (longer than the longest outage a test makes it wait through unread).
   */
  public String declareQueue(Map<String, Object> arguments) throws Exception {
    String queue = "relayer-it-" + UUID.randomUUID();
    Map<String, Object> all = new HashMap<>(arguments);
    all.put("x-expires", 1_800_000);
    try (Channel channel = admin.createChannel()) {
      channel.queueDeclare(queue, true, false, false, all);
    }
    synchronized (queues) {
      queues.add(queue);
    }
    return queue;
  }

  /** The fixture's own connection to the broker, for declaring and consuming. */
  public Connection admin() {
    return admin;
  }

  @Override
  public List<ConsumedMessage> consumeUntil(
      String destination, Predicate<List<ConsumedMessage>> enough, Duration timeout)
      throws Exception {
    String queue = RabbitMqDestination.parse(destination).routingKey();
    LinkedBlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();
    List<ConsumedMessage> received = new ArrayList<>();
    try (Channel channel = admin.createChannel()) {
      String tag = channel.basicConsume(queue, true, (t, d) -> deliveries.add(d), t -> {});
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!enough.test(received)) {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          break;
        }
        Delivery delivery = deliveries.poll(remaining, TimeUnit.NANOSECONDS);
        if (delivery != null) {
          received.add(toConsumed(delivery));
        }
      }
      channel.basicCancel(tag);
    }
    return received;
  }

  /** A delivery as Relayer's fields: AMQP message-id, type, headers and body. */
  public static ConsumedMessage toConsumed(Delivery delivery) {
    Map<String, String> headers = new HashMap<>();
    Map<String, Object> raw = delivery.getProperties().getHeaders();
    if (raw != null) {
      raw.forEach((key, value) -> headers.put(key, String.valueOf(value)));
    }
    return new ConsumedMessage(
        delivery.getProperties().getMessageId(),
        delivery.getProperties().getType(),
        headers,
        delivery.getBody());
  }

  @Override
  public void stop() {
    proxy.cut();
  }

  @Override
  public void start() {
    proxy.restore();
  }

  /** Keeps this fixture's connections open but lets no byte through (a half-open network). */
  public void stall() {
    proxy.stall();
  }

  /** Lets bytes through again after {@link #stall()}. */
  public void heal() {
    proxy.heal();
  }

  @Override
  public void close() throws Exception {
    try {
      if (admin.isOpen()) {
        try (Channel channel = admin.createChannel()) {
          synchronized (queues) {
            for (String queue : queues) {
              channel.queueDelete(queue);
            }
            queues.clear();
          }
        }
        admin.close();
      }
    } finally {
      if (proxy != null) {
        proxy.close();
      }
    }
  }
}
