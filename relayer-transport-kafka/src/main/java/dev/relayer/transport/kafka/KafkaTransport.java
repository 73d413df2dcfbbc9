package dev.relayer.transport.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.RelayerException;
import dev.relayer.api.RelayerHeaders;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.api.spi.TransportSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers outbox messages to Kafka. See the package documentation for the record layout, what
 * "accepted" means and what happens when the cluster is down.
 *
 * <pre>{@code
 * Properties producer = new Properties();
 * producer.put("bootstrap.servers", "127.0.0.1:9092");
 * Transport kafka = KafkaTransport.builder().properties(producer).build();
 * }</pre>
 *
 * <p>Thread-safe: one idempotent producer serves every batch.
 */
public final class KafkaTransport implements Transport {

  /** The default {@link #name()}: {@value}. */
  public static final String DEFAULT_NAME = "kafka";

  /** The default {@link #maxBatchSize()}: {@value}. */
  public static final int DEFAULT_MAX_BATCH_SIZE = 500;

  /** The largest {@link Builder#maxBatchSize(int)} accepted: {@value}. */
  public static final int MAX_BATCH_SIZE_LIMIT = 10_000;

  /** Header carrying the Relayer message id (UUID text, UTF-8): {@value}. */
  public static final String MESSAGE_ID_HEADER = RelayerHeaders.MESSAGE_ID;

  /** Header carrying the message type (UTF-8): {@value}. */
  public static final String MESSAGE_TYPE_HEADER = RelayerHeaders.MESSAGE_TYPE;

  /** Header carrying the message's tenant (UTF-8), only when it has one: {@value}. */
  public static final String TENANT_ID_HEADER = RelayerHeaders.TENANT_ID;

  private static final String EARLIER_FAILED =
      "not sent: an earlier message of this ordered batch failed";

  private static final Logger log = LoggerFactory.getLogger(KafkaTransport.class);

  private final String name;
  private final int maxBatchSize;
  private final boolean orderedBatches;
  private final Duration closeTimeout;
  private final String bootstrapServers;
  private final Producer<String, byte[]> producer;
  private final ExecutorService sender;
  private volatile boolean closed;

  private KafkaTransport(Builder builder, Properties config) {
    this.name = builder.name;
    this.maxBatchSize = builder.maxBatchSize;
    this.orderedBatches = builder.orderedBatches;
    this.closeTimeout = builder.closeTimeout;
    this.bootstrapServers = config.getProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
    this.producer = new KafkaProducer<>(config);
    AtomicInteger threads = new AtomicInteger();
    this.sender =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            task -> {
              Thread thread =
                  new Thread(task, "relayer-" + name + "-sender-" + threads.incrementAndGet());
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
   * ({@code false}) records are handed to the producer together and acknowledged independently, so
   * a record after a rejected one may already be written; the idempotent producer does keep
   * accepted records of a partition in order, so records with the same key stay in batch order.
   * Ordered batches wait for each acknowledgement and stop at the first failure.
   */
  @Override
  public boolean preservesBatchOrder() {
    return orderedBatches;
  }

  @Override
  public List<SendResult> send(TransportBatch batch) throws InterruptedException {
    long deadline = System.nanoTime() + batch.timeout().toNanos();
    if (closed) {
      throw new RelayerException("Kafka transport '" + name + "' is closed");
    }
    String topic = KafkaTopic.check(batch.destination());
    List<OutgoingMessage> messages = batch.messages();
    if (messages.isEmpty()) {
      return List.of();
    }
    List<SendResult> results =
        orderedBatches
            ? sendOrdered(topic, messages, deadline, batch.timeout())
            : sendPipelined(topic, messages, deadline, batch.timeout());
    log.debug(
        "transport={} topic={} sent={} accepted={}",
        name,
        topic,
        results.size(),
        results.stream().filter(SendResult::isAccepted).count());
    return results;
  }

  /**
   * Hands every record to the producer, then awaits each acknowledgement. KafkaProducer.send blocks
   * while it waits for the topic's metadata (up to max.block.ms), so the hand-off runs on a sender
   * thread that is interrupted when the batch timeout passes.
   */
  private List<SendResult> sendPipelined(
      String topic, List<OutgoingMessage> messages, long deadline, Duration timeout)
      throws InterruptedException {
    AtomicReferenceArray<Future<RecordMetadata>> futures =
        new AtomicReferenceArray<>(messages.size());
    AtomicReferenceArray<String> notSent = new AtomicReferenceArray<>(messages.size());
    AtomicReferenceArray<SendResult> rejected = new AtomicReferenceArray<>(messages.size());
    boolean handedOver =
        runUntil(
            deadline,
            () -> {
              for (int i = 0; i < messages.size(); i++) {
                if (Thread.currentThread().isInterrupted()) {
                  return;
                }
                Future<RecordMetadata> future;
                try {
                  future = producer.send(record(topic, messages.get(i)));
                } catch (KafkaException | IllegalStateException e) {
                  if (isPermanent(e)) {
                    // This record alone cannot be sent (for example it does not serialize).
                    rejected.set(i, SendResult.rejected("not sent: " + describe(e)));
                    continue;
                  }
                  for (int j = i; j < messages.size(); j++) {
                    notSent.set(j, "not sent: " + describe(e));
                  }
                  return;
                }
                futures.set(i, future);
                String metadataFailure = metadataFailure(future);
                if (metadataFailure != null) {
                  // Failed before it was handed to a broker: no metadata for the topic.
                  futures.set(i, null);
                  notSent.set(i, "not sent: " + metadataFailure);
                  // Every record of the batch goes to the same topic: do not wait again per record.
                  for (int j = i + 1; j < messages.size(); j++) {
                    notSent.set(j, "not sent: " + metadataFailure);
                  }
                  return;
                }
              }
            });

    List<SendResult> results = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      Future<RecordMetadata> future = futures.get(i);
      if (future != null) {
        results.add(await(future, deadline, timeout));
      } else if (handedOver && rejected.get(i) != null) {
        results.add(rejected.get(i));
      } else {
        // After a timeout the interrupted hand-off may still be writing; its errors are not ours.
        // Never handed to the producer (no metadata: the cluster or the topic is unavailable).
        String error = handedOver ? notSent.get(i) : null;
        results.add(SendResult.unavailable(error != null ? error : noMetadata(topic, timeout)));
      }
    }
    return results;
  }

  /**
   * Hands one record at a time to the producer and waits for its acknowledgement before the next;
   * after a failure the rest are not sent. Runs on a sender thread, interrupted at the timeout.
   */
  private List<SendResult> sendOrdered(
      String topic, List<OutgoingMessage> messages, long deadline, Duration timeout)
      throws InterruptedException {
    AtomicReferenceArray<Future<RecordMetadata>> futures =
        new AtomicReferenceArray<>(messages.size());
    AtomicReferenceArray<SendResult> outcomes = new AtomicReferenceArray<>(messages.size());
    runUntil(
        deadline,
        () -> {
          for (int i = 0; i < messages.size(); i++) {
            SendResult outcome;
            try {
              Future<RecordMetadata> future = producer.send(record(topic, messages.get(i)));
              futures.set(i, future);
              String metadataFailure = metadataFailure(future);
              if (metadataFailure != null) {
                // Failed before it was handed to a broker: no metadata for the topic.
                outcome = SendResult.unavailable("not sent: " + metadataFailure);
              } else {
                future.get();
                outcome = SendResult.accepted();
              }
            } catch (InterruptedException | org.apache.kafka.common.errors.InterruptException e) {
              return; // the batch timed out; the caller reports the rest
            } catch (ExecutionException e) {
              outcome = failure(e.getCause() == null ? e : e.getCause(), "");
            } catch (KafkaException | IllegalStateException e) {
              outcome = failure(e, "not sent: ");
            }
            outcomes.set(i, outcome);
            if (!outcome.isAccepted()) {
              for (int j = i + 1; j < messages.size(); j++) {
                outcomes.set(j, SendResult.unavailable(EARLIER_FAILED));
              }
              return;
            }
          }
        });

    List<SendResult> results = new ArrayList<>(messages.size());
    boolean pendingReported = false;
    for (int i = 0; i < messages.size(); i++) {
      SendResult outcome = outcomes.get(i);
      if (outcome != null) {
        results.add(outcome);
      } else if (pendingReported) {
        results.add(SendResult.unavailable(EARLIER_FAILED));
      } else {
        pendingReported = true;
        // Handed over and unacknowledged: it may have reached Kafka. Never handed over: it did not.
        results.add(
            futures.get(i) != null
                ? SendResult.timedOut(noAcknowledgement(timeout))
                : SendResult.unavailable(noMetadata(topic, timeout)));
      }
    }
    return results;
  }

  /**
   * Runs {@code handOff} on a sender thread until it ends or the deadline passes, then interrupts
   * it. Returns whether it ended in time.
   */
  private boolean runUntil(long deadline, Runnable handOff) throws InterruptedException {
    Future<?> task = sender.submit(handOff);
    try {
      task.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      task.cancel(true);
      return false;
    } catch (ExecutionException e) {
      throw new RelayerException("handing the batch to the Kafka producer failed", e.getCause());
    }
  }

  private String noMetadata(String topic, Duration timeout) {
    return "not sent: no metadata for topic '"
        + topic
        + "' from Kafka within the batch timeout of "
        + timeout
        + " (bootstrap.servers="
        + bootstrapServers
        + ")";
  }

  private String noAcknowledgement(Duration timeout) {
    return "no acknowledgement from Kafka within the batch timeout of "
        + timeout
        + " (bootstrap.servers="
        + bootstrapServers
        + ")";
  }

  private SendResult await(Future<RecordMetadata> future, long deadline, Duration timeout)
      throws InterruptedException {
    try {
      future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      return SendResult.accepted();
    } catch (TimeoutException e) {
      return SendResult.timedOut(noAcknowledgement(timeout));
    } catch (ExecutionException e) {
      return failure(e.getCause() == null ? e : e.getCause(), "");
    }
  }

  /** {@code cause} as a result: rejected for good when Kafka will never take the record. */
  private SendResult failure(Throwable cause, String prefix) {
    String error = prefix + describe(cause);
    return isPermanent(cause) ? SendResult.rejected(error) : SendResult.failed(error);
  }

  /**
   * Whether {@code cause} says the record can never be written as it is: larger than the producer's
   * {@code max.request.size} or the topic's {@code max.message.bytes} ({@link
   * RecordTooLargeException}), an illegal topic ({@link InvalidTopicException}), a record the
   * broker refuses as invalid ({@link InvalidRecordException}, for example a record without a key
   * on a compacted topic), or one that does not serialize ({@link SerializationException}).
   * Timeouts, missing metadata and every other error are retried.
   */
  private static boolean isPermanent(Throwable cause) {
    return cause instanceof RecordTooLargeException
        || cause instanceof InvalidTopicException
        || cause instanceof InvalidRecordException
        || cause instanceof SerializationException;
  }

  /** The error of a record whose send already failed on missing metadata, else {@code null}. */
  private @Nullable String metadataFailure(Future<RecordMetadata> future) {
    if (!future.isDone()) {
      return null;
    }
    try {
      future.get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException
          ? describe(e.getCause())
          : null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private String describe(Throwable cause) {
    String description = SendResult.describe(cause);
    if (cause instanceof org.apache.kafka.common.errors.TimeoutException
        || cause instanceof org.apache.kafka.common.errors.RetriableException) {
      return description + " (bootstrap.servers=" + bootstrapServers + ")";
    }
    return description;
  }

  private static ProducerRecord<String, byte[]> record(String topic, OutgoingMessage message) {
    List<Header> headers = new ArrayList<>(message.headers().size() + 3);
    for (Map.Entry<String, String> header : message.headers().entrySet()) {
      if (!header.getKey().equals(MESSAGE_ID_HEADER)
          && !header.getKey().equals(MESSAGE_TYPE_HEADER)
          && !header.getKey().equals(TENANT_ID_HEADER)) {
        headers.add(new RecordHeader(header.getKey(), header.getValue().getBytes(UTF_8)));
      }
    }
    headers.add(
        new RecordHeader(MESSAGE_ID_HEADER, message.messageId().toString().getBytes(UTF_8)));
    headers.add(new RecordHeader(MESSAGE_TYPE_HEADER, message.messageType().getBytes(UTF_8)));
    String tenantId = message.tenantId();
    if (tenantId != null) {
      headers.add(new RecordHeader(TENANT_ID_HEADER, tenantId.getBytes(UTF_8)));
    }
    return new ProducerRecord<>(topic, null, null, message.orderingKey(), message.body(), headers);
  }

  /**
   * A destination that is not a legal topic name (1 to 249 characters of {@code [a-zA-Z0-9._-]},
   * not {@code .} or {@code ..}): the dispatcher refuses such a message at enqueue, and {@link
   * #send} rejects the batch for good. Kafka headers and keys carry any text, so nothing else is
   * checked; a record over {@code max.request.size} is rejected when it is sent.
   */
  @Override
  public List<String> problems(String destination, OutgoingMessage message) {
    String problem = KafkaTopic.problem(destination);
    return problem == null ? List.of() : List.of(problem);
  }

  /**
   * Flushes every record the producer still holds (including records of batches that timed out),
   * then closes it, waiting at most {@code closeTimeout}. Safe to call twice.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    sender.shutdownNow();
    producer.close(closeTimeout);
  }

  /**
   * Builds a {@link KafkaTransport}. {@link #build()} checks every setting at once and names each
   * bad one; the producer's own configuration errors are reported the same way.
   */
  public static final class Builder {
    private String name = DEFAULT_NAME;
    private @Nullable Properties properties;
    private int maxBatchSize = DEFAULT_MAX_BATCH_SIZE;
    private Duration closeTimeout = Duration.ofSeconds(30);
    private boolean orderedBatches;

    private Builder() {}

    /** The transport's {@link Transport#name()}; default {@value #DEFAULT_NAME}. */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /**
     * The producer configuration, as for {@code new KafkaProducer(properties)}: {@code
     * bootstrap.servers} is required, and security, timeouts, compression and batching are yours to
     * set. The transport sets the serializers (string key, byte-array value), {@code
     * enable.idempotence=true} and {@code acks=all}; it rejects other values for them. {@code
     * client.id} defaults to {@code relayer-<name>}. The properties are copied.
     */
    public Builder properties(Properties properties) {
      this.properties = properties;
      return this;
    }

    /**
     * The most messages per batch, 1 to {@value #MAX_BATCH_SIZE_LIMIT}; default {@value
     * #DEFAULT_MAX_BATCH_SIZE}. The producer groups records into its own requests regardless.
     */
    public Builder maxBatchSize(int maxBatchSize) {
      this.maxBatchSize = maxBatchSize;
      return this;
    }

    /**
     * Whether to send a batch one record at a time, waiting for each acknowledgement before the
     * next and stopping at the first failure (the rest are reported failed and not sent), so that
     * {@link KafkaTransport#preservesBatchOrder()} holds and the dispatcher may send several
     * messages of one ordering key in a batch. Costs a round trip (plus {@code linger.ms}) per
     * record. Default {@code false}: pipelined.
     */
    public Builder orderedBatches(boolean orderedBatches) {
      this.orderedBatches = orderedBatches;
      return this;
    }

    /** How long {@code close()} waits for the producer to flush; positive, default 30 s. */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = closeTimeout;
      return this;
    }

    /**
     * Validates every setting and builds the transport. Creates the producer, which does not
     * connect until the first batch.
     *
     * @throws InvalidInputException naming every bad setting
     */
    public KafkaTransport build() {
      List<String> problems = new ArrayList<>();
      TransportSettings.checkName(problems, name);
      TransportSettings.checkBatchSize(problems, maxBatchSize, MAX_BATCH_SIZE_LIMIT);
      if (closeTimeout == null || closeTimeout.isZero() || closeTimeout.isNegative()) {
        problems.add("closeTimeout must be a positive duration, was " + closeTimeout);
      }
      Properties config = new Properties();
      if (properties == null) {
        problems.add("properties are required (at least bootstrap.servers)");
      } else {
        config.putAll(properties);
        String bootstrap = config.getProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
        if (bootstrap == null || bootstrap.isBlank()) {
          problems.add("properties: bootstrap.servers is required");
        }
        require(problems, config, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        require(problems, config, ProducerConfig.ACKS_CONFIG, "all", "-1");
        require(
            problems,
            config,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            StringSerializer.class.getName());
        require(
            problems,
            config,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class.getName());
      }
      if (!problems.isEmpty()) {
        throw new InvalidInputException(problems);
      }
      config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
      config.put(ProducerConfig.ACKS_CONFIG, "all");
      config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      config.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "relayer-" + name);
      try {
        return new KafkaTransport(this, config);
      } catch (KafkaException e) {
        throw new InvalidInputException(
            "properties: the Kafka producer rejects them: " + SendResult.describe(rootCause(e)));
      }
    }

    private static void require(
        List<String> problems, Properties config, String key, String... allowed) {
      Object value = config.get(key);
      if (value == null) {
        return;
      }
      String text = value instanceof Class<?> type ? type.getName() : value.toString().trim();
      for (String candidate : allowed) {
        if (candidate.equalsIgnoreCase(text)) {
          return;
        }
      }
      problems.add(
          "properties: " + key + " must be " + String.join(" or ", allowed) + ", was " + text);
    }

    private static Throwable rootCause(Throwable e) {
      Throwable cause = e;
      while (cause.getCause() != null && cause.getCause() != cause) {
        cause = cause.getCause();
      }
      return cause;
    }
  }
}
