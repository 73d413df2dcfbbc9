package dev.relayer.transport.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.relayer.api.InvalidInputException;
import dev.relayer.api.RelayerException;
import dev.relayer.api.RelayerHeaders;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.api.spi.TransportSettings;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers outbox messages to RabbitMQ. See the package documentation for the destination syntax,
 * what "accepted" means and what happens when the broker is down.
 *
 * <pre>{@code
 * Transport rabbit = RabbitMqTransport.builder()
 *     .uri("amqp://guest:guest@127.0.0.1:5672/")
 *     .build();
 * }</pre>
 *
 * <p>Thread-safe. Connects lazily on the first batch, so an application starts while its broker is
 * down; once connected, the client's automatic recovery reconnects after a network failure.
 */
public final class RabbitMqTransport implements Transport {

  /** The default {@link #name()}: {@value}. */
  public static final String DEFAULT_NAME = "rabbitmq";

  /**
   * AMQP header carrying the message's tenant, only when it has one: {@value}. The message id and
   * type travel in the AMQP properties {@code message-id} and {@code type}.
   */
  public static final String TENANT_ID_HEADER = RelayerHeaders.TENANT_ID;

  /** The default {@link #maxBatchSize()}: {@value}. */
  public static final int DEFAULT_MAX_BATCH_SIZE = 500;

  /** The largest {@link Builder#maxBatchSize(int)} accepted: {@value}. */
  public static final int MAX_BATCH_SIZE_LIMIT = 10_000;

  private static final Logger log = LoggerFactory.getLogger(RabbitMqTransport.class);

  private final String name;
  private final int maxBatchSize;
  private final boolean orderedBatches;
  private final Duration connectTimeout;
  private final ConnectionFactory factory;
  private final BrokerAddresses addresses;
  private final String address;
  private final ReentrantLock connectLock = new ReentrantLock();
  private final ThreadPoolExecutor closer;
  private volatile @Nullable Connection connection;
  private volatile boolean closed;

  private RabbitMqTransport(Builder builder, ConnectionFactory factory, BrokerAddresses addresses) {
    this.name = builder.name;
    this.maxBatchSize = builder.maxBatchSize;
    this.orderedBatches = builder.orderedBatches;
    this.connectTimeout = builder.connectTimeout;
    this.factory = factory;
    this.addresses = addresses;
    this.address = addresses.toString();
    AtomicInteger threads = new AtomicInteger();
    this.closer =
        new ThreadPoolExecutor(
            0,
            1,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            task -> {
              Thread thread =
                  new Thread(
                      task, "relayer-" + name + "-channel-closer-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int maxBatchSize() {
    return maxBatchSize;
  }

  /**
   * Whether the transport was built with {@link Builder#orderedBatches(boolean)}. By default
   * ({@code false}) a batch is published pipelined and confirmed afterwards, so when RabbitMQ
   * refuses one message the ones after it may already be queued; accepted messages of one batch do
   * reach a queue in batch order (one channel per batch). Ordered batches wait for each confirm and
   * stop at the first failure.
   */
  @Override
  public boolean preservesBatchOrder() {
    return orderedBatches;
  }

  @Override
  public List<SendResult> send(TransportBatch batch) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + batch.timeout().toNanos();
    if (closed) {
      throw new RelayerException("RabbitMQ transport '" + name + "' is closed");
    }
    RabbitMqDestination destination = RabbitMqDestination.parse(batch.destination());
    if (batch.messages().isEmpty()) {
      return List.of();
    }
    Channel channel;
    try {
      Connection current = connection(deadline, batch.timeout());
      try {
        channel = current.createChannel();
      } catch (IOException | ShutdownSignalException e) {
        throw unavailable("cannot open a channel", e);
      }
      if (channel == null) {
        throw new Unavailable(
            "RabbitMQ at " + address + " has no free channel on the connection of '" + name + "'",
            null);
      }
    } catch (Unavailable e) {
      // Nothing was published: not the messages' fault, and their attempts are given back.
      String error = String.valueOf(e.getMessage());
      return batch.messages().stream().map(m -> SendResult.unavailable(error)).toList();
    }
    ConfirmedBatch confirmed = new ConfirmedBatch(batch.messages(), destination, orderedBatches);
    try {
      List<SendResult> results = confirmed.publishAndAwait(channel, deadline, batch.timeout());
      log.debug(
          "transport={} destination={} sent={} accepted={}",
          name,
          batch.destination(),
          results.size(),
          results.stream().filter(SendResult::isAccepted).count());
      return results;
    } finally {
      if (confirmed.completed()) {
        closeChannel(channel);
      } else {
        // The broker did not answer in time: closing waits for its reply, so do it off this thread.
        closer.execute(() -> closeChannel(channel));
      }
    }
  }

  /**
   * A destination that is not {@code exchange/routingKey} (blank, a bare {@code /}, a name over 255
   * bytes), a message type or a header name over 255 bytes of UTF-8 (AMQP short strings): the
   * dispatcher refuses such a message at enqueue. {@link #send} rejects the same messages for good.
   */
  @Override
  public List<String> problems(String destination, OutgoingMessage message) {
    String destinationProblem = RabbitMqDestination.problem(destination);
    List<String> messageProblems = AmqpFields.problems(message);
    if (destinationProblem == null) {
      return messageProblems;
    }
    List<String> problems = new ArrayList<>(messageProblems.size() + 1);
    problems.add(destinationProblem);
    problems.addAll(messageProblems);
    return problems;
  }

  /**
   * Closes the connection after in-flight batches got their confirms or failed. Every batch waits
   * for its confirms before it returns, so there is nothing else to flush. Safe to call twice.
   */
  @Override
  public void close() {
    closed = true;
    connectLock.lock();
    try {
      Connection current = connection;
      connection = null;
      if (current != null && current.isOpen()) {
        try {
          current.close(Math.toIntExact(connectTimeout.toMillis()));
        } catch (IOException | ShutdownSignalException e) {
          log.debug("transport={} closing the connection failed: {}", name, e.toString());
        }
      } else if (current != null) {
        current.abort(); // stops automatic recovery
      }
    } finally {
      connectLock.unlock();
    }
    closer.shutdown();
  }

  private Connection connection(long deadline, Duration timeout) throws InterruptedException {
    Connection current = connection;
    if (current != null) {
      if (current.isOpen()) {
        return current;
      }
      throw unavailable("the connection is down and recovering", current.getCloseReason());
    }
    long remaining = deadline - System.nanoTime();
    if (!connectLock.tryLock(Math.max(0, remaining), TimeUnit.NANOSECONDS)) {
      throw new Unavailable(
          "RabbitMQ at "
              + address
              + " is not connected yet: another batch is connecting and the batch timeout of "
              + timeout
              + " passed",
          null);
    }
    try {
      if (closed) {
        throw new RelayerException("RabbitMQ transport '" + name + "' is closed");
      }
      Connection raced = connection;
      if (raced != null) {
        if (raced.isOpen()) {
          return raced;
        }
        throw unavailable("the connection is down and recovering", raced.getCloseReason());
      }
      int connectMillis =
          (int)
              Math.max(
                  1,
                  Math.min(
                      connectTimeout.toMillis(),
                      TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      ConnectionFactory attempt = factory.clone();
      attempt.setConnectionTimeout(connectMillis);
      attempt.setHandshakeTimeout(connectMillis);
      Connection created;
      try {
        if (addresses.size() == 1) {
          // The client's own resolver: without TLS, it tries every IP address of the host.
          created = attempt.newConnection(addresses.list(), "relayer-" + name);
        } else {
          // The first address, in the order given, that connects wins (see BrokerAddresses).
          created = attempt.newConnection(null, addresses, "relayer-" + name);
        }
      } catch (IOException | TimeoutException e) {
        throw unavailable("cannot connect", e);
      }
      watch(created);
      connection = created;
      log.info("transport={} connected to RabbitMQ at {}", name, connectedTo(created));
      return created;
    } finally {
      connectLock.unlock();
    }
  }

  private void watch(Connection created) {
    created.addShutdownListener(
        cause -> {
          if (cause.isInitiatedByApplication()) {
            // Closed by someone on purpose: automatic recovery will not bring it back, so the next
            // batch connects afresh.
            if (!closed && connection == created) {
              connection = null;
            }
          } else {
            log.warn(
                "transport={} lost its RabbitMQ connection to {}; recovering: {}",
                name,
                address,
                cause.getMessage());
          }
        });
    if (created instanceof Recoverable recoverable) {
      recoverable.addRecoveryListener(
          new RecoveryListener() {
            @Override
            public void handleRecovery(Recoverable recovered) {
              log.info(
                  "transport={} reconnected to RabbitMQ at {}",
                  name,
                  recovered instanceof Connection reconnected ? connectedTo(reconnected) : address);
            }

            @Override
            public void handleRecoveryStarted(Recoverable recovering) {}
          });
    }
  }

  /** The address a connection went to: the host and port of the broker that answered. */
  private static String connectedTo(Connection connection) {
    return connection.getAddress().getHostAddress() + ":" + connection.getPort();
  }

  private Unavailable unavailable(String what, @Nullable Throwable cause) {
    String detail = cause == null ? "" : ": " + SendResult.describe(cause);
    return new Unavailable(
        "RabbitMQ at " + address + " is unavailable (" + what + ")" + detail, cause);
  }

  /** Nothing of the batch could be published: {@link #send} reports it as unavailable. */
  private static final class Unavailable extends RelayerException {
    private static final long serialVersionUID = 1L;

    Unavailable(String message, @Nullable Throwable cause) {
      super(message, cause);
    }
  }

  private void closeChannel(Channel channel) {
    try {
      if (channel.isOpen()) {
        channel.close();
      }
    } catch (IOException | TimeoutException | ShutdownSignalException e) {
      log.debug("transport={} closing a channel failed: {}", name, e.toString());
    }
  }

  /**
   * Builds a {@link RabbitMqTransport}. Give either {@link #uri} or {@link #connectionFactory}, and
   * optionally {@link #addresses} for several brokers; {@link #build()} checks every setting at
   * once and names each bad one.
   */
  public static final class Builder {
    private String name = DEFAULT_NAME;
    private @Nullable String uri;
    private @Nullable ConnectionFactory connectionFactory;
    private @Nullable List<String> addresses;
    private int maxBatchSize = DEFAULT_MAX_BATCH_SIZE;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration recoveryInterval = Duration.ofSeconds(2);
    private boolean orderedBatches;

    private Builder() {}

    /** The transport's {@link Transport#name()}; default {@value #DEFAULT_NAME}. */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /**
     * The broker as an AMQP URI, {@code amqp://user:password@host:port/vhost} ({@code amqps://} for
     * TLS); a URI ending in a bare {@code /} uses the default vhost {@code /}. Required unless
     * {@link #connectionFactory} is given.
     */
    public Builder uri(String uri) {
      this.uri = uri;
      return this;
    }

    /**
     * A configured client factory (credentials, TLS, heartbeat, client properties). The transport
     * works on a copy and turns on automatic connection recovery in it. Exclusive with {@link
     * #uri}.
     */
    public Builder connectionFactory(ConnectionFactory connectionFactory) {
      this.connectionFactory = connectionFactory;
      return this;
    }

    /**
     * Several brokers (the nodes of a cluster), {@code host[:port]} each ({@code [host]:port} for
     * an IPv6 literal; without a port, 5672, or 5671 with TLS), instead of the host and port of
     * {@link #uri} or {@link #connectionFactory}, which still give the credentials, virtual host
     * and TLS. The transport connects to the first address, in this order, that accepts the
     * connection and the AMQP handshake, each attempt bounded by {@link #connectTimeout}; after a
     * lost connection, automatic recovery tries them again in the same order. Default: the host of
     * the URI or the connection factory alone. The list is copied.
     */
    public Builder addresses(List<String> addresses) {
      this.addresses = List.copyOf(addresses);
      return this;
    }

    /**
     * The most messages per batch, 1 to {@value #MAX_BATCH_SIZE_LIMIT}; default {@value
     * #DEFAULT_MAX_BATCH_SIZE}. A batch is published on one channel and waits for its confirms.
     */
    public Builder maxBatchSize(int maxBatchSize) {
      this.maxBatchSize = maxBatchSize;
      return this;
    }

    /**
     * Bound on connecting (TCP and AMQP handshake, also capped by the batch timeout; with several
     * {@link #addresses}, on each one tried) and on each channel RPC (opening and closing a batch's
     * channel); positive, default 5 s.
     */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * Whether to publish a batch one message at a time, waiting for each publisher confirm before
     * the next and stopping at the first failure (the rest are reported failed and not sent), so
     * that {@link RabbitMqTransport#preservesBatchOrder()} holds and the dispatcher may send
     * several messages of one ordering key in a batch. Costs a broker round trip per message.
     * Default {@code false}: pipelined.
     */
    public Builder orderedBatches(boolean orderedBatches) {
      this.orderedBatches = orderedBatches;
      return this;
    }

    /** Wait between reconnection attempts after the connection is lost; positive, default 2 s. */
    public Builder recoveryInterval(Duration recoveryInterval) {
      this.recoveryInterval = recoveryInterval;
      return this;
    }

    /**
     * Validates every setting and builds the transport; does not connect.
     *
     * @throws InvalidInputException naming every bad setting
     */
    public RabbitMqTransport build() {
      List<String> problems = new ArrayList<>();
      TransportSettings.checkName(problems, name);
      TransportSettings.checkBatchSize(problems, maxBatchSize, MAX_BATCH_SIZE_LIMIT);
      TransportSettings.checkPositive(problems, "connectTimeout", connectTimeout);
      TransportSettings.checkPositive(problems, "recoveryInterval", recoveryInterval);
      ConnectionFactory factory = null;
      if (uri == null && connectionFactory == null) {
        problems.add("uri is required (or give a connectionFactory)");
      } else if (uri != null && connectionFactory != null) {
        problems.add("uri and connectionFactory are exclusive; give one");
      } else if (connectionFactory != null) {
        factory = connectionFactory.clone();
      } else {
        try {
          factory = factoryFor(Objects.requireNonNull(uri)); // given: connectionFactory is not
        } catch (Exception e) {
          problems.add("uri is not a valid AMQP URI (" + e.getMessage() + ")");
        }
      }
      BrokerAddresses brokers = null;
      if (addresses != null) {
        brokers = BrokerAddresses.parse(addresses, problems);
      } else if (factory != null) {
        brokers = BrokerAddresses.of(factory.getHost(), factory.getPort());
      }
      if (!problems.isEmpty()) {
        throw new InvalidInputException(problems);
      }
      Objects.requireNonNull(factory);
      Objects.requireNonNull(brokers);
      factory.setAutomaticRecoveryEnabled(true);
      factory.setTopologyRecoveryEnabled(false); // the transport declares nothing
      factory.setNetworkRecoveryInterval(recoveryInterval.toMillis());
      factory.setChannelRpcTimeout(Math.toIntExact(connectTimeout.toMillis()));
      return new RabbitMqTransport(this, factory, brokers);
    }

    /**
     * A factory for an AMQP URI. A URI whose path is just {@code /} (an empty vhost name, which
     * RabbitMQ cannot have) means the default vhost {@code /}, as most clients read it; write
     * {@code %2F} or a name to be explicit.
     */
    static ConnectionFactory factoryFor(String uri) throws Exception {
      ConnectionFactory factory = new ConnectionFactory();
      factory.setUri(uri);
      if (factory.getVirtualHost().isEmpty()) {
        factory.setVirtualHost("/");
      }
      return factory;
    }
  }
}
