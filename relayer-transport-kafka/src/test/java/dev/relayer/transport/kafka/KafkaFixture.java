package dev.relayer.transport.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.relayer.api.spi.Transport;
import dev.relayer.testkit.transport.ConsumedMessage;
import dev.relayer.testkit.transport.RestartableBrokerFixture;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidMetadataException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A Kafka cluster: the one named by {@value #BOOTSTRAP_VARIABLE} when set (it must not auto-create
 * topics), or a private {@link KafkaBrokerProcess}, which {@link #stop()} kills and {@link
 * #start()} starts again, or a private broker behind its proxy ({@link
 * KafkaBrokerProcess#startBehindProxy()}), which {@link #stop()} cuts and {@link #stall()} stalls
 * for this fixture's transports (the fixture's own admin client and consumer bypass it). Each
 * destination is a fresh topic with one partition.
 */
public final class KafkaFixture implements RestartableBrokerFixture, AutoCloseable {

  public static final String BOOTSTRAP_VARIABLE = "RELAYER_KAFKA_BOOTSTRAP";

  /** Producer {@code max.block.ms} of the fixture's transports, so a missing topic fails soon. */
  public static final Duration MAX_BLOCK = Duration.ofSeconds(2);

  private final String bootstrapServers;
  private final String directBootstrapServers;
  private final KafkaBrokerProcess process;
  private final boolean ownsProcess;
  private final Admin admin;
  private final Set<String> topics = ConcurrentHashMap.newKeySet();
  private boolean orderedBatches;

  private KafkaFixture(String bootstrapServers, KafkaBrokerProcess process, boolean ownsProcess) {
    this(bootstrapServers, bootstrapServers, process, ownsProcess);
  }

  /** Transports use {@code bootstrapServers}; the fixture's admin and consumer the direct ones. */
  private KafkaFixture(
      String bootstrapServers,
      String directBootstrapServers,
      KafkaBrokerProcess process,
      boolean ownsProcess) {
    this.bootstrapServers = bootstrapServers;
    this.directBootstrapServers = directBootstrapServers;
    this.process = process;
    this.ownsProcess = ownsProcess;
    Properties properties = new Properties();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, directBootstrapServers);
    this.admin = Admin.create(properties);
  }

  /** The cluster named by {@value #BOOTSTRAP_VARIABLE}, or {@code null} when it is not set. */
  public static KafkaFixture external() {
    String bootstrap = System.getenv(BOOTSTRAP_VARIABLE);
    return bootstrap == null || bootstrap.isBlank()
        ? null
        : new KafkaFixture(bootstrap.trim(), null, false);
  }

  /**
   * The test run's private broker, which {@link #stop()} kills and {@link #start()} restarts; its
   * caller closes it.
   */
  public static KafkaFixture privateBroker(KafkaBrokerProcess process) {
    return new KafkaFixture(process.bootstrapServers(), process, false);
  }

  /**
   * A private broker of {@link KafkaBrokerProcess#startBehindProxy()}, which {@link #stop()} and
   * {@link #stall()} take away from the transports by its proxy; its caller closes it.
   */
  public static KafkaFixture proxied(KafkaBrokerProcess process) {
    return new KafkaFixture(
        process.bootstrapServers(), process.directBootstrapServers(), process, false);
  }

  /**
   * The cluster named by {@value #BOOTSTRAP_VARIABLE} when set, else a private broker started now
   * for this fixture alone, which {@link #close()} kills and deletes with its data.
   */
  public static KafkaFixture externalOrOwnBroker() throws IOException, InterruptedException {
    KafkaFixture external = external();
    if (external != null) {
      return external;
    }
    KafkaBrokerProcess process = KafkaBrokerProcess.start();
    try {
      return new KafkaFixture(process.bootstrapServers(), process, true);
    } catch (RuntimeException e) {
      process.close();
      throw e;
    }
  }

  /** The cluster's {@code bootstrap.servers}. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** Makes the transports this fixture opens send ordered batches. */
  KafkaFixture orderedBatches(boolean orderedBatches) {
    this.orderedBatches = orderedBatches;
    return this;
  }

  /** Producer properties of the fixture's transports: the cluster, {@link #MAX_BLOCK}. */
  public Properties producerProperties() {
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(MAX_BLOCK.toMillis()));
    properties.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
    return properties;
  }

  @Override
  public Transport openTransport() {
    return KafkaTransport.builder()
        .properties(producerProperties())
        .orderedBatches(orderedBatches)
        .build();
  }

  @Override
  public String createDestination() throws Exception {
    return createTopic(1, Map.of());
  }

  @Override
  public String createDestinationRejectingBodiesOver(int maxBodyBytes) throws Exception {
    // max.message.bytes bounds a whole record batch; leave room for the batch and record headers.
    return createTopic(1, Map.of("max.message.bytes", Integer.toString(maxBodyBytes + 1024)));
  }

  @Override
  public String unroutableDestination() {
    return "relayer-it-missing-" + UUID.randomUUID();
  }

  /** A fresh topic whose partitions all have a serving leader; see {@link #close()}. */
  public String createTopic(int partitions, Map<String, String> config) throws Exception {
    String topic = "relayer-it-" + UUID.randomUUID();
    admin
        .createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(config)))
        .all()
        .get(60, TimeUnit.SECONDS);
    topics.add(topic);
    // Wait until every partition's leader serves requests: a produce that races the leader election
    // of a brand-new topic gets NOT_LEADER_OR_FOLLOWER, which tests have no business waiting out.
    Map<TopicPartition, OffsetSpec> partitionsOfTopic = new HashMap<>();
    for (int partition = 0; partition < partitions; partition++) {
      partitionsOfTopic.put(new TopicPartition(topic, partition), OffsetSpec.latest());
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        admin.listOffsets(partitionsOfTopic).all().get(60, TimeUnit.SECONDS);
        return topic;
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof InvalidMetadataException)
            || System.nanoTime() - deadline > 0) {
          throw e;
        }
        Thread.sleep(50); // the topic's metadata has not reached the broker's cache yet
      }
    }
  }

  /** Reads every partition of {@code topic} from the beginning with a real consumer. */
  List<ConsumerRecord<String, byte[]>> records(
      String topic, Predicate<List<ConsumerRecord<String, byte[]>>> enough, Duration timeout) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, directBootstrapServers);
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.CLIENT_ID_CONFIG, "relayer-it-consumer");
    List<ConsumerRecord<String, byte[]>> received = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(properties, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, timeout).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .collect(Collectors.toList());
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!enough.test(received) && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(received::add);
      }
    }
    return received;
  }

  @Override
  public List<ConsumedMessage> consumeUntil(
      String destination, Predicate<List<ConsumedMessage>> enough, Duration timeout) {
    return records(
            destination,
            records ->
                enough.test(
                    records.stream().map(KafkaFixture::toConsumed).collect(Collectors.toList())),
            timeout)
        .stream()
        .map(KafkaFixture::toConsumed)
        .collect(Collectors.toList());
  }

  /** A record as Relayer's fields: the id and type headers, every header, the value. */
  public static ConsumedMessage toConsumed(ConsumerRecord<String, byte[]> record) {
    Map<String, String> headers = new HashMap<>();
    for (Header header : record.headers()) {
      headers.put(header.key(), header.value() == null ? "" : new String(header.value(), UTF_8));
    }
    return new ConsumedMessage(
        headers.get(KafkaTransport.MESSAGE_ID_HEADER),
        headers.get(KafkaTransport.MESSAGE_TYPE_HEADER),
        headers,
        record.value() == null ? new byte[0] : record.value());
  }

  /** Whether the transports reach the broker through its proxy ({@link #proxied}). */
  private boolean proxied() {
    return !bootstrapServers.equals(directBootstrapServers);
  }

  @Override
  public void stop() throws InterruptedException {
    if (proxied()) {
      process.proxy().cut();
    } else {
      process.kill();
    }
  }

  @Override
  public void start() throws Exception {
    if (proxied()) {
      process.proxy().restore();
    } else {
      process.startProcess();
    }
  }

  /**
   * Keeps the transports' connections open but lets no byte through (a half-open network); only for
   * {@link #proxied}.
   */
  public void stall() {
    process.proxy().stall();
  }

  /** Lets bytes through again after {@link #stall()}. */
  public void heal() {
    process.proxy().heal();
  }

  /**
   * Deletes the topics of an external cluster (a private broker's go with its directory), and
   * closes a broker of {@link #externalOrOwnBroker()}.
   */
  @Override
  public void close() throws Exception {
    try {
      if (process == null && !topics.isEmpty()) {
        admin.deleteTopics(topics).all().get(30, TimeUnit.SECONDS);
      }
    } finally {
      try {
        admin.close(Duration.ofSeconds(5));
      } finally {
        if (ownsProcess) {
          process.close();
        }
      }
    }
  }
}
