package dev.relayer.transport.nats;

import dev.relayer.api.spi.Transport;
import dev.relayer.testkit.transport.ConsumedMessage;
import dev.relayer.testkit.transport.RestartableBrokerFixture;
import dev.relayer.testkit.transport.TcpProxy;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.OrderedConsumerContext;
import io.nats.client.api.OrderedConsumerConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A NATS server with JetStream: the shared one named by {@value #URL_VARIABLE} (default {@value
 * #DEFAULT_URL}), or a private {@link NatsServerProcess} that {@link #stop()} kills and {@link
 * #start()} starts again, or the shared one behind a {@link TcpProxy} that {@link #stop()} cuts and
 * {@link #stall()} stalls for this fixture's transports only. Each destination is a subject
 * captured by its own stream.
 */
public final class NatsFixture implements RestartableBrokerFixture, AutoCloseable {

  public static final String URL_VARIABLE = "RELAYER_NATS_URL";
  public static final String DEFAULT_URL = "nats://127.0.0.1:4222";

  private final String url;
  private final NatsServerProcess process;
  private final TcpProxy proxy;
  private final StorageType storage;
  private final Connection admin;
  private final Map<String, String> streamsBySubject = new ConcurrentHashMap<>();
  private boolean orderedBatches;

  private NatsFixture(String url, NatsServerProcess process, TcpProxy proxy, StorageType storage)
      throws IOException, InterruptedException {
    this.url = url;
    this.process = process;
    this.proxy = proxy;
    this.storage = storage;
    this.admin =
        Nats.connect(
            new Options.Builder()
                .server(url)
                .connectionName("relayer-it-admin")
                .maxReconnects(-1)
                .reconnectWait(Duration.ofMillis(100))
                .build());
  }

  /** The shared server; streams are in memory. */
  public static NatsFixture shared() throws IOException, InterruptedException {
    return new NatsFixture(sharedUrl(), null, null, StorageType.Memory);
  }

  /**
   * The shared server, which this fixture's transports reach through a proxy that {@link #stop()}
   * cuts and {@link #stall()} stalls; streams are in memory, and the fixture itself (streams,
   * consuming) talks to the server directly.
   */
  public static NatsFixture proxied() throws IOException, InterruptedException {
    URI server = URI.create(sharedUrl());
    TcpProxy proxy =
        TcpProxy.start(server.getHost(), server.getPort() > 0 ? server.getPort() : 4222);
    try {
      return new NatsFixture(sharedUrl(), null, proxy, StorageType.Memory);
    } catch (IOException | InterruptedException | RuntimeException e) {
      proxy.close();
      throw e;
    }
  }

  private static String sharedUrl() {
    String url = System.getenv(URL_VARIABLE);
    return url == null || url.isBlank() ? DEFAULT_URL : url.trim();
  }

  /** A private server process; streams are on disk so that they survive a restart. */
  public static NatsFixture privateServer() throws IOException, InterruptedException {
    NatsServerProcess process = NatsServerProcess.start();
    try {
      return new NatsFixture(process.url(), process, null, StorageType.File);
    } catch (IOException | RuntimeException e) {
      process.close();
      throw e;
    }
  }

  /** The server's URL, which the fixture's transports use unless they go through a proxy. */
  public String url() {
    return url;
  }

  private String transportUrl() {
    return proxy == null ? url : "nats://127.0.0.1:" + proxy.port();
  }

  /** Makes the transports this fixture opens publish ordered batches. */
  NatsFixture orderedBatches(boolean orderedBatches) {
    this.orderedBatches = orderedBatches;
    return this;
  }

  @Override
  public Transport openTransport() {
    return NatsTransport.builder()
        .url(transportUrl())
        .reconnectWait(Duration.ofMillis(250))
        .orderedBatches(orderedBatches)
        .build();
  }

  @Override
  public String createDestination() throws Exception {
    return createStream(builder -> {});
  }

  @Override
  public String createDestinationRejectingBodiesOver(int maxBodyBytes) throws Exception {
    // The limit covers headers too; the suite's small messages stay far below it.
    return createStream(builder -> builder.maximumMessageSize(maxBodyBytes));
  }

  @Override
  public String unroutableDestination() {
    return "relayer.it.unbound." + UUID.randomUUID().toString().replace("-", "");
  }

  /**
   * A fresh subject captured by its own stream (duplicate window 2 minutes unless {@code
   * customizer} changes it); {@link #close()} deletes the stream.
   */
  public String createStream(Consumer<StreamConfiguration.Builder> customizer) throws Exception {
    String token = UUID.randomUUID().toString().replace("-", "");
    String stream = "RELAYER_IT_" + token;
    String subject = "relayer.it." + token;
    StreamConfiguration.Builder builder =
        StreamConfiguration.builder()
            .name(stream)
            .subjects(subject)
            .storageType(storage)
            .duplicateWindow(Duration.ofMinutes(2));
    customizer.accept(builder);
    admin.jetStreamManagement().addStream(builder.build());
    streamsBySubject.put(subject, stream);
    return subject;
  }

  /** How many messages the stream of {@code subject} holds. */
  public long storedMessages(String subject) throws IOException, JetStreamApiException {
    return admin
        .jetStreamManagement()
        .getStreamInfo(streamsBySubject.get(subject))
        .getStreamState()
        .getMsgCount();
  }

  /** The fixture's own connection to the server, for managing streams and consuming. */
  public Connection connection() {
    return admin;
  }

  /** The name of the stream that captures {@code subject}, a subject of {@link #createStream}. */
  public String streamOf(String subject) {
    return streamsBySubject.get(subject);
  }

  @Override
  public List<ConsumedMessage> consumeUntil(
      String destination, Predicate<List<ConsumedMessage>> enough, Duration timeout)
      throws Exception {
    String stream = streamsBySubject.get(destination);
    OrderedConsumerContext consumer =
        admin.getStreamContext(stream).createOrderedConsumer(new OrderedConsumerConfiguration());
    List<ConsumedMessage> received = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!enough.test(received)) {
      long remainingMillis = (deadline - System.nanoTime()) / 1_000_000;
      if (remainingMillis <= 0) {
        break;
      }
      // The client's shortest wait is one second, so a read may overrun its timeout by that much.
      Message message = consumer.next(Duration.ofSeconds(1));
      if (message != null) {
        received.add(toConsumed(message));
      }
    }
    return received;
  }

  /** A message as Relayer's fields: {@code Nats-Msg-Id}, type header, headers and body. */
  public static ConsumedMessage toConsumed(Message message) {
    Map<String, String> headers = new HashMap<>();
    Headers raw = message.getHeaders();
    if (raw != null) {
      for (String key : raw.keySet()) {
        headers.put(key, raw.getFirst(key));
      }
    }
    return new ConsumedMessage(
        headers.get(NatsTransport.MESSAGE_ID_HEADER),
        headers.get(NatsTransport.MESSAGE_TYPE_HEADER),
        headers,
        message.getData() == null ? new byte[0] : message.getData());
  }

  @Override
  public void stop() throws InterruptedException {
    if (proxy != null) {
      proxy.cut();
    } else {
      process.kill();
    }
  }

  @Override
  public void start() throws IOException, InterruptedException {
    if (proxy != null) {
      proxy.restore();
    } else {
      process.startProcess();
    }
  }

  /**
   * Keeps the transports' connections open but lets no byte through (a half-open network); only for
   * {@link #proxied()}.
   */
  public void stall() {
    proxyOrFail().stall();
  }

  /** Lets bytes through again after {@link #stall()}. */
  public void heal() {
    proxyOrFail().heal();
  }

  private TcpProxy proxyOrFail() {
    if (proxy == null) {
      throw new IllegalStateException("only a proxied fixture can stall");
    }
    return proxy;
  }

  @Override
  public void close() throws Exception {
    try {
      JetStreamManagement management = admin.jetStreamManagement();
      for (String stream : streamsBySubject.values()) {
        try {
          management.deleteStream(stream);
        } catch (JetStreamApiException | IOException e) {
          // left to the server: a private server's store is deleted below anyway
        }
      }
      admin.close();
    } finally {
      if (process != null) {
        process.close();
      }
      if (proxy != null) {
        proxy.close();
      }
    }
  }
}
