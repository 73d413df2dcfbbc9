package dev.relayer.transport.nats;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.RelayerException;
import dev.relayer.api.RelayerHeaders;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.api.spi.TransportSettings;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers outbox messages to NATS JetStream. See the package documentation for the destination
 * syntax, what "accepted" means and what happens when the server is down.
 *
 * <pre>{@code
 * Transport nats = NatsTransport.builder()
 *     .url("nats://127.0.0.1:4222")
 *     .build();
 * }</pre>
 *
 * <p>Thread-safe. Connects lazily on the first batch, so an application starts while its server is
 * down; once connected, the client reconnects on its own after a network failure.
 */
// close() throws InterruptedException on purpose: the flush to the server blocks, and an
// interrupted close must not pass for a finished one.
@SuppressWarnings("try")
public final class NatsTransport implements Transport {

  /** The default {@link #name()}: {@value}. */
  public static final String DEFAULT_NAME = "nats";

  /** The default {@link #maxBatchSize()}: {@value}. */
  public static final int DEFAULT_MAX_BATCH_SIZE = 500;

  /** The largest {@link Builder#maxBatchSize(int)} accepted: {@value}. */
  public static final int MAX_BATCH_SIZE_LIMIT = 10_000;

  /** Header carrying the message type; the message id travels in {@code Nats-Msg-Id}. */
  public static final String MESSAGE_TYPE_HEADER = RelayerHeaders.MESSAGE_TYPE;

  /** Header carrying the message's tenant, only when it has one: {@value}. */
  public static final String TENANT_ID_HEADER = RelayerHeaders.TENANT_ID;

  /** JetStream's deduplication header, set to the Relayer message id. */
  public static final String MESSAGE_ID_HEADER = "Nats-Msg-Id";

  /**
   * JetStream API errors that say the stream will never take this message: {@code 10054} message
   * size exceeds the stream's maximum, {@code 10097} header size exceeds the maximum.
   */
  private static final Set<Integer> PERMANENT_API_ERRORS = Set.of(10054, 10097);

  private static final Logger log = LoggerFactory.getLogger(NatsTransport.class);

  private final String name;
  private final int maxBatchSize;
  private final boolean orderedBatches;
  private final Duration connectTimeout;
  private final Options options;
  private final String address;
  private final ReentrantLock connectLock = new ReentrantLock();
  private volatile @Nullable Link link;
  private volatile boolean closed;

  /** A connection and its JetStream context. */
  private record Link(Connection connection, JetStream jetStream) {}

  private NatsTransport(Builder builder, Options options) {
    this.name = builder.name;
    this.maxBatchSize = builder.maxBatchSize;
    this.orderedBatches = builder.orderedBatches;
    this.connectTimeout = builder.connectTimeout;
    if (builder.options == null) {
      Logged logged = new Logged();
      options =
          new Options.Builder(options).connectionListener(logged).errorListener(logged).build();
    }
    this.options = options;
    this.address = String.join(",", options.getUnprocessedServers());
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
   * ({@code false}) a batch is published pipelined and acknowledged afterwards, so when the stream
   * refuses one message the ones after it may already be stored; accepted messages of one batch do
   * land in the stream in batch order. Ordered batches wait for each acknowledgement and stop at
   * the first failure.
   */
  @Override
  public boolean preservesBatchOrder() {
    return orderedBatches;
  }

  @Override
  public List<SendResult> send(TransportBatch batch) throws InterruptedException {
    long deadline = System.nanoTime() + batch.timeout().toNanos();
    if (closed) {
      throw new RelayerException("NATS transport '" + name + "' is closed");
    }
    String subject = NatsSubject.check(batch.destination(), options.getMaxControlLine());
    List<OutgoingMessage> messages = batch.messages();
    if (messages.isEmpty()) {
      return List.of();
    }
    Link current;
    try {
      current = link(deadline, batch.timeout());
    } catch (Unavailable e) {
      // Nothing was published: not the messages' fault, and their attempts are given back.
      String error = String.valueOf(e.getMessage());
      return messages.stream().map(m -> SendResult.unavailable(error)).toList();
    }
    long maxPayload = current.connection().getServerInfo().getMaxPayload();

    List<SendResult> results =
        orderedBatches
            ? publishOrdered(current.jetStream(), subject, messages, maxPayload, deadline, batch)
            : publishPipelined(current.jetStream(), subject, messages, maxPayload, deadline, batch);
    log.debug(
        "transport={} subject={} sent={} accepted={}",
        name,
        subject,
        results.size(),
        results.stream().filter(SendResult::isAccepted).count());
    return results;
  }

  /**
   * A subject the client cannot publish on, a header or message type NATS headers cannot carry
   * ({@link NatsHeaderRules}) — also checked by the dispatcher at enqueue; the body and headers
   * together are checked against the server's {@code max_payload} when the batch is sent.
   */
  @Override
  public List<String> problems(String destination, OutgoingMessage message) {
    String subjectProblem = NatsSubject.problem(destination, options.getMaxControlLine());
    List<String> headerProblems = NatsHeaderRules.problems(message);
    if (subjectProblem == null) {
      return headerProblems;
    }
    List<String> problems = new ArrayList<>(headerProblems.size() + 1);
    problems.add(subjectProblem);
    problems.addAll(headerProblems);
    return problems;
  }

  /** Publishes every message, then collects the acknowledgements. */
  private static List<SendResult> publishPipelined(
      JetStream jetStream,
      String subject,
      List<OutgoingMessage> messages,
      long maxPayload,
      long deadline,
      TransportBatch batch)
      throws InterruptedException {
    List<CompletableFuture<PublishAck>> acks = new ArrayList<>(messages.size());
    SendResult[] unsent = new SendResult[messages.size()];
    for (int i = 0; i < messages.size(); i++) {
      acks.add(null);
      OutgoingMessage message = messages.get(i);
      Prepared prepared = prepare(message, maxPayload);
      if (prepared.refused() != null) {
        unsent[i] = prepared.refused();
        continue;
      }
      try {
        acks.set(
            i, publish(jetStream, subject, message, Objects.requireNonNull(prepared.headers())));
      } catch (RuntimeException e) {
        unsent[i] = SendResult.failed(notSent(e));
      }
    }
    List<SendResult> results = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      CompletableFuture<PublishAck> ack = acks.get(i);
      results.add(ack == null ? unsent[i] : await(ack, deadline, batch.timeout(), subject));
    }
    return results;
  }

  /** Publishes one message at a time, waiting for its acknowledgement; stops at a failure. */
  private static List<SendResult> publishOrdered(
      JetStream jetStream,
      String subject,
      List<OutgoingMessage> messages,
      long maxPayload,
      long deadline,
      TransportBatch batch)
      throws InterruptedException {
    List<SendResult> results = new ArrayList<>(messages.size());
    for (OutgoingMessage message : messages) {
      SendResult result;
      if (!results.isEmpty() && !results.get(results.size() - 1).isAccepted()) {
        result =
            SendResult.unavailable("not sent: an earlier message of this ordered batch failed");
      } else {
        Prepared prepared = prepare(message, maxPayload);
        result = prepared.refused();
        if (result == null) {
          try {
            result =
                await(
                    publish(
                        jetStream, subject, message, Objects.requireNonNull(prepared.headers())),
                    deadline,
                    batch.timeout(),
                    subject);
          } catch (RuntimeException e) {
            result = SendResult.failed(notSent(e));
          }
        }
      }
      results.add(result);
    }
    return results;
  }

  /** A message's NATS headers, or why it is rejected for good; exactly one is set. */
  /** Either headers to send with, or the message refused (never both). */
  private record Prepared(@Nullable Headers headers, @Nullable SendResult refused) {}

  /**
   * The message's headers, or the message rejected for good when NATS cannot carry it: a header or
   * message type its headers cannot hold, or a body and headers over the server's {@code
   * max_payload}.
   */
  private static Prepared prepare(OutgoingMessage message, long maxPayload) {
    List<String> problems = NatsHeaderRules.problems(message);
    if (!problems.isEmpty()) {
      return new Prepared(null, SendResult.rejected("not sent: " + String.join("; ", problems)));
    }
    Headers headers;
    try {
      headers = headers(message);
    } catch (IllegalArgumentException e) {
      // The client's own header rules, should they be stricter than NatsHeaderRules.
      return new Prepared(null, SendResult.rejected("not sent: " + e.getMessage()));
    }
    long size = message.body().length + (long) headers.serializedLength();
    if (maxPayload > 0 && size > maxPayload) {
      return new Prepared(
          null,
          SendResult.rejected(
              "not sent: body and headers are "
                  + size
                  + " bytes; the NATS server takes at most "
                  + maxPayload
                  + " (max_payload)"));
    }
    return new Prepared(headers, null);
  }

  private static CompletableFuture<PublishAck> publish(
      JetStream jetStream, String subject, OutgoingMessage message, Headers headers) {
    return jetStream.publishAsync(
        subject,
        headers,
        message.body(),
        PublishOptions.builder().messageId(message.messageId().toString()).build());
  }

  private static String notSent(RuntimeException e) {
    // The client rejects bad headers with IllegalArgumentException; its message says which.
    return "not sent: "
        + (e instanceof IllegalArgumentException ? e.getMessage() : SendResult.describe(e));
  }

  private static SendResult await(
      CompletableFuture<PublishAck> ack, long deadline, Duration timeout, String subject)
      throws InterruptedException {
    try {
      long remaining = Math.max(0, deadline - System.nanoTime());
      ack.get(remaining, TimeUnit.NANOSECONDS);
      return SendResult.accepted();
    } catch (TimeoutException e) {
      return SendResult.timedOut(
          "timed out: no JetStream publish acknowledgement on '"
              + subject
              + "' within the batch timeout of "
              + timeout
              + "; the message may have been stored");
    } catch (ExecutionException e) {
      if (unanswered(e)) {
        // The client gave up waiting (a stalled network, a paused server): nothing refused it.
        return SendResult.timedOut(
            "timed out: no JetStream publish acknowledgement on '"
                + subject
                + "' (the server did not answer: "
                + reason(e)
                + "); the message may have been stored");
      }
      String error = "JetStream refused the message on '" + subject + "': " + reason(e);
      return apiErrorCode(e) != null && PERMANENT_API_ERRORS.contains(apiErrorCode(e))
          ? SendResult.rejected(error)
          : SendResult.failed(error);
    }
  }

  /**
   * Whether an acknowledgement failed because the client stopped waiting for it — its request
   * timeout passed ({@link TimeoutException}, or the {@link CancellationException} the client uses
   * for the same) — rather than because the server answered with an error.
   */
  private static boolean unanswered(ExecutionException e) {
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof TimeoutException || cause instanceof CancellationException) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  /** The JetStream API error code behind a failed acknowledgement, or {@code null}. */
  private static @Nullable Integer apiErrorCode(ExecutionException e) {
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof JetStreamApiException api) {
        return api.getApiErrorCode();
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return null;
  }

  private static String reason(ExecutionException e) {
    Throwable cause = e.getCause();
    while ((cause instanceof RuntimeException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof JetStreamApiException api) {
      return api.getErrorDescription() + " (error " + api.getApiErrorCode() + ")";
    }
    return cause == null ? SendResult.describe(e) : SendResult.describe(cause);
  }

  private static Headers headers(OutgoingMessage message) {
    Headers headers = new Headers();
    for (Map.Entry<String, String> header : message.headers().entrySet()) {
      if (!header.getKey().equals(MESSAGE_TYPE_HEADER)
          && !header.getKey().equals(MESSAGE_ID_HEADER)
          && !header.getKey().equals(TENANT_ID_HEADER)) {
        headers.put(header.getKey(), header.getValue());
      }
    }
    headers.put(MESSAGE_TYPE_HEADER, message.messageType());
    String tenantId = message.tenantId();
    if (tenantId != null) {
      headers.put(TENANT_ID_HEADER, tenantId);
    }
    // The publish options set it too; here it counts in the size checked against max_payload.
    headers.put(MESSAGE_ID_HEADER, message.messageId().toString());
    return headers;
  }

  /**
   * Flushes what is buffered to the server, bounded by {@code connectTimeout}, and closes the
   * connection. Every batch waits for its acknowledgements before it returns, so nothing else is
   * pending. Safe to call twice.
   */
  @Override
  public void close() throws InterruptedException {
    closed = true;
    connectLock.lock();
    try {
      Link current = link;
      link = null;
      if (current != null) {
        Connection connection = current.connection();
        if (connection.getStatus() == Connection.Status.CONNECTED) {
          try {
            connection.flush(connectTimeout);
          } catch (TimeoutException e) {
            log.warn("transport={} could not flush to NATS within {}", name, connectTimeout);
          }
        }
        connection.close();
      }
    } finally {
      connectLock.unlock();
    }
  }

  private Link link(long deadline, Duration timeout) throws InterruptedException {
    Link current = link;
    if (current != null && usable(current)) {
      return current;
    }
    long remaining = deadline - System.nanoTime();
    if (!connectLock.tryLock(Math.max(0, remaining), TimeUnit.NANOSECONDS)) {
      throw new Unavailable(
          "NATS at "
              + address
              + " is not connected yet: another batch is connecting and the batch timeout of "
              + timeout
              + " passed",
          null);
    }
    try {
      if (closed) {
        throw new RelayerException("NATS transport '" + name + "' is closed");
      }
      current = link;
      if (current != null && usable(current)) {
        return current;
      }
      long connectMillis =
          Math.max(
              1,
              Math.min(
                  connectTimeout.toMillis(),
                  TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      Options attempt =
          new Options.Builder(options).connectionTimeout(Duration.ofMillis(connectMillis)).build();
      Connection connection;
      try {
        connection = Nats.connect(attempt);
      } catch (IOException e) {
        throw new Unavailable(
            "NATS at " + address + " is unavailable (cannot connect): " + SendResult.describe(e),
            e);
      }
      try {
        current = new Link(connection, connection.jetStream());
      } catch (IOException e) {
        connection.close();
        throw new Unavailable(
            "NATS at " + address + " has no JetStream: " + SendResult.describe(e), e);
      }
      link = current;
      log.info("transport={} connected to NATS at {}", name, address);
      return current;
    } finally {
      connectLock.unlock();
    }
  }

  /**
   * Whether batches can go out on this link now: connected, or else fail fast. A closed connection
   * (reconnects exhausted, or closed by someone) is replaced by a new one.
   */
  private boolean usable(Link current) {
    Connection.Status status = current.connection().getStatus();
    if (status == Connection.Status.CONNECTED) {
      return true;
    }
    if (status == Connection.Status.CLOSED) {
      return false;
    }
    throw new Unavailable(
        "NATS at " + address + " is unavailable: the connection is " + status + ", reconnecting",
        null);
  }

  /** Nothing of the batch could be published: {@link #send} reports it as unavailable. */
  private static final class Unavailable extends RelayerException {
    private static final long serialVersionUID = 1L;

    Unavailable(String message, @Nullable Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Builds a {@link NatsTransport}. Give either {@link #url} or {@link #options}; {@link #build()}
   * checks every setting at once and names each bad one.
   */
  public static final class Builder {
    private String name = DEFAULT_NAME;
    private @Nullable String url;
    private @Nullable Options options;
    private int maxBatchSize = DEFAULT_MAX_BATCH_SIZE;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration reconnectWait = Duration.ofSeconds(1);
    private boolean orderedBatches;

    private Builder() {}

    /** The transport's {@link Transport#name()}; default {@value #DEFAULT_NAME}. */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /**
     * The server, {@code nats://host:port}, or several separated by commas ({@code tls://} for
     * TLS). Required unless {@link #options} is given.
     */
    public Builder url(String url) {
      this.url = url;
      return this;
    }

    /**
     * Fully configured client options (servers, credentials, TLS, reconnect policy), used as given
     * except for the connect timeout, which {@link #connectTimeout} and the batch timeout bound.
     * Exclusive with {@link #url} and {@link #reconnectWait}.
     */
    public Builder options(Options options) {
      this.options = options;
      return this;
    }

    /**
     * The most messages per batch, 1 to {@value #MAX_BATCH_SIZE_LIMIT}; default {@value
     * #DEFAULT_MAX_BATCH_SIZE}. A batch's publishes are in flight together.
     */
    public Builder maxBatchSize(int maxBatchSize) {
      this.maxBatchSize = maxBatchSize;
      return this;
    }

    /**
     * Bound on connecting (also capped by the batch timeout) and on the flush in {@code close()};
     * positive, default 5 s.
     */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * Whether to publish a batch one message at a time, waiting for each publish acknowledgement
     * before the next and stopping at the first failure (the rest are reported failed and not
     * sent), so that {@link NatsTransport#preservesBatchOrder()} holds and the dispatcher may send
     * several messages of one ordering key in a batch. Costs a server round trip per message.
     * Default {@code false}: pipelined.
     */
    public Builder orderedBatches(boolean orderedBatches) {
      this.orderedBatches = orderedBatches;
      return this;
    }

    /**
     * Wait between reconnection attempts after the connection is lost (with {@link #url}; the
     * client retries forever); positive, default 1 s.
     */
    public Builder reconnectWait(Duration reconnectWait) {
      this.reconnectWait = reconnectWait;
      return this;
    }

    /**
     * Validates every setting and builds the transport; does not connect.
     *
     * @throws InvalidInputException naming every bad setting
     */
    public NatsTransport build() {
      List<String> problems = new ArrayList<>();
      TransportSettings.checkName(problems, name);
      TransportSettings.checkBatchSize(problems, maxBatchSize, MAX_BATCH_SIZE_LIMIT);
      TransportSettings.checkPositive(problems, "connectTimeout", connectTimeout);
      TransportSettings.checkPositive(problems, "reconnectWait", reconnectWait);
      Options built = null;
      if (url == null && options == null) {
        problems.add("url is required (or give options)");
      } else if (url != null && options != null) {
        problems.add("url and options are exclusive; give one");
      } else if (options != null) {
        built = options;
      } else if (Objects.requireNonNull(url).isBlank()) { // given: options is not
        problems.add("url must not be blank");
      } else {
        try {
          built =
              new Options.Builder()
                  .server(url)
                  .connectionName("relayer-" + name)
                  .maxReconnects(-1)
                  .reconnectWait(reconnectWait == null ? Duration.ofSeconds(1) : reconnectWait)
                  .build();
        } catch (IllegalArgumentException | IllegalStateException e) {
          problems.add("url is not a valid NATS URL (" + e.getMessage() + ")");
        }
      }
      if (!problems.isEmpty()) {
        throw new InvalidInputException(problems);
      }
      // No problems: the options were built.
      return new NatsTransport(this, Objects.requireNonNull(built));
    }
  }

  /**
   * Routes the client's connection events and errors to SLF4J: the first disconnect is a warning,
   * the failed attempts that follow while the server is away are debug, a reconnect is information.
   */
  private final class Logged implements ConnectionListener, ErrorListener {
    /** Until the first connect, a failed attempt is the transport's error to report, not a loss. */
    private final AtomicBoolean down = new AtomicBoolean(true);

    // The listener's one abstract method, deprecated in jnats 2.x; its replacement, the overload
    // with a time and the server's URI, is a default method that calls this one.
    @Override
    @SuppressWarnings("deprecation")
    public void connectionEvent(Connection connection, Events event) {
      String connectionName = connection.getOptions().getConnectionName();
      switch (event) {
        case DISCONNECTED -> {
          if (!closed && down.compareAndSet(false, true)) {
            log.warn("NATS connection {} lost; reconnecting", connectionName);
          }
        }
        case CONNECTED -> down.set(false);
        case RECONNECTED -> {
          if (down.getAndSet(false)) {
            log.info(
                "NATS connection {} reconnected to {}",
                connectionName,
                connection.getConnectedUrl());
          }
        }
        default -> log.debug("NATS connection {} event={}", connectionName, event);
      }
    }

    @Override
    public void errorOccurred(Connection connection, String error) {
      log.warn(
          "NATS connection {} error from the server: {}",
          connection.getOptions().getConnectionName(),
          error);
    }

    @Override
    public void exceptionOccurred(Connection connection, Exception exception) {
      log.debug(
          "NATS connection {}: {}",
          connection.getOptions().getConnectionName(),
          exception.toString());
    }
  }
}
