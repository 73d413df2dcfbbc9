package dev.relayer.bench.relayer;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.bench.report.Ratio;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.transport.kafka.KafkaTransport;
import dev.relayer.transport.nats.NatsTransport;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * End-to-end throughput per broker: producers enqueue and commit, direct dispatch sends through the
 * real broker transport, the broker accepts, the row is deleted. A no-op transport over the same
 * path is the baseline.
 */
public final class BrokersScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "brokers";

  /** Messages per producer transaction. */
  static final int PER_TRANSACTION = 10;

  /** Most messages committed but not yet accepted before producers wait. */
  static final int IN_FLIGHT = 5_000;

  static final String RABBITMQ_VARIABLE = "RELAYER_RABBITMQ_URI";
  static final String RABBITMQ_DEFAULT = "amqp://guest:guest@127.0.0.1:5672/";
  static final String NATS_VARIABLE = "RELAYER_NATS_URL";
  static final String NATS_DEFAULT = "nats://127.0.0.1:4222";
  static final String KAFKA_VARIABLE = "RELAYER_KAFKA_BOOTSTRAP";

  private static final String QUEUE = "relayer-bench";
  private static final String STREAM = "RELAYER_BENCH";
  private static final String SUBJECT = "relayer.bench";
  private static final String TOPIC = "relayer-bench";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "Brokers: end-to-end throughput per broker";
  }

  @Override
  public String description() {
    return String.join(
        "\n",
        "`--producers` threads commit application transactions of "
            + PER_TRANSACTION
            + " unordered messages each (`store.enqueue` on an application `DSLContext` with"
            + " Relayer's after-commit listener) until `--broker-messages` are committed, holding"
            + " back while more than "
            + String.format("%,d", IN_FLIGHT)
            + " are committed but not yet accepted. A started `RelayerDispatcher` (default"
            + " dispatch options) with `RelayerMaintenance` (defaults) sends them by direct"
            + " dispatch through the broker's transport with its default options (pipelined"
            + " batches of up to 500). The clock runs from the first producer transaction until"
            + " the broker accepted every message and the outbox table is empty.",
        "",
        "- **noop**: the no-op `ProbeTransport` on the same path, as the baseline.",
        "- **rabbitmq**: `RabbitMqTransport` (`"
            + RABBITMQ_VARIABLE
            + "`, default `"
            + RABBITMQ_DEFAULT
            + "`), publisher confirms, destination `/"
            + QUEUE
            + "` (a queue the scenario declares and deletes).",
        "- **nats**: `NatsTransport` (`"
            + NATS_VARIABLE
            + "`, default `"
            + NATS_DEFAULT
            + "`), JetStream publish acks, subject `"
            + SUBJECT
            + "` of a file-backed stream `"
            + STREAM
            + "` the scenario creates and deletes.",
        "- **kafka**: `KafkaTransport` (idempotent producer, `acks=all`) to a topic `"
            + TOPIC
            + "` (1 partition) the scenario creates and deletes; only when `"
            + KAFKA_VARIABLE
            + "` names a cluster.");
  }

  @Override
  public List<Ratio> ratios() {
    return List.of(
        new Ratio("rabbitmq / noop", ID + ".rabbitmq.msgs", ID + ".noop.msgs", "—"),
        new Ratio("nats / noop", ID + ".nats.msgs", ID + ".noop.msgs", "—"),
        new Ratio("kafka / noop", ID + ".kafka.msgs", ID + ".noop.msgs", "—"));
  }

  @Override
  // jnats' Connection.close() throws InterruptedException; the run is over when it is closed.
  @SuppressWarnings("try")
  public void run(ScenarioContext context) throws Exception {
    ScenarioDatabase db = context.database();
    BenchOptions o = context.options();
    db.installRelayerSchema();
    DataSource pool = db.pool("relayer", o.poolSize());
    Map<String, String> env = System.getenv();

    measure(context, pool, "noop", null, "orders");

    String rabbitUri = env.getOrDefault(RABBITMQ_VARIABLE, RABBITMQ_DEFAULT);
    try {
      ConnectionFactory factory = new ConnectionFactory();
      factory.setUri(rabbitUri);
      if (factory.getVirtualHost().isEmpty()) {
        factory.setVirtualHost("/"); // a URI ending in a bare "/" means the default vhost
      }
      try (com.rabbitmq.client.Connection connection = factory.newConnection("relayer-bench");
          Channel channel = connection.createChannel()) {
        channel.queueDeclare(QUEUE, false, false, false, null);
        channel.queuePurge(QUEUE);
        try {
          measure(
              context,
              pool,
              "rabbitmq",
              RabbitMqTransport.builder().uri(rabbitUri).build(),
              "/" + QUEUE);
        } finally {
          channel.queueDelete(QUEUE);
        }
      }
    } catch (Exception e) {
      context.note(
          "rabbitmq: not measured: "
              + e
              + Optional.ofNullable(e.getCause()).map(c -> " (" + c + ")").orElse(""));
    }

    String natsUrl = env.getOrDefault(NATS_VARIABLE, NATS_DEFAULT);
    try (Connection connection = Nats.connect(natsUrl)) {
      JetStreamManagement jsm = connection.jetStreamManagement();
      try {
        jsm.deleteStream(STREAM);
      } catch (Exception absent) {
        // not there: fine
      }
      jsm.addStream(
          StreamConfiguration.builder()
              .name(STREAM)
              .subjects(SUBJECT)
              .storageType(StorageType.File)
              .build());
      try {
        measure(context, pool, "nats", NatsTransport.builder().url(natsUrl).build(), SUBJECT);
      } finally {
        jsm.deleteStream(STREAM);
      }
    } catch (Exception e) {
      context.note("nats: not measured: " + e);
    }

    Optional<String> kafka = Optional.ofNullable(env.get(KAFKA_VARIABLE)).filter(s -> !s.isBlank());
    if (kafka.isEmpty()) {
      context.note("kafka: not measured: no broker (" + KAFKA_VARIABLE + " is not set)");
      return;
    }
    Properties admin = new Properties();
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.get());
    try (Admin client = Admin.create(admin)) {
      client
          .createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
      try {
        Properties producer = new Properties();
        producer.put("bootstrap.servers", kafka.get());
        measure(
            context, pool, "kafka", KafkaTransport.builder().properties(producer).build(), TOPIC);
      } finally {
        client.deleteTopics(List.of(TOPIC)).all().get(30, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      context.note("kafka: not measured: " + e);
    }
  }

  private static void measure(
      ScenarioContext context, DataSource pool, String broker, Transport transport, String dest)
      throws Exception {
    BenchOptions o = context.options();
    long total = o.brokerMessages();
    DeliveryProbe seen = new DeliveryProbe();
    // null: the no-op transport, which reports to the probe itself
    Transport counted =
        transport == null ? new ProbeTransport(seen, 1000) : new Counting(transport, seen);
    long timeout = o.timeout().toNanos();
    // The dispatcher never closes transports (the application owns them): close it here, or a
    // broker client's threads keep polling after the run and keep the JVM alive.
    try (counted;
        RelayerRig rig = RelayerRig.startedWith(pool, seen, o, counted)) {
      rig.startMaintenance(MaintenanceOptions.defaults());
      AtomicLong committed = new AtomicLong();
      ExecutorService producers = Executors.newFixedThreadPool(o.producers());
      long start = System.nanoTime();
      List<Future<?>> running = new ArrayList<>();
      try {
        for (int i = 0; i < o.producers(); i++) {
          running.add(
              producers.submit(
                  () -> {
                    while (committed.getAndAdd(PER_TRANSACTION) < total) {
                      while (committed.get() - seen.deliveredCount() > IN_FLIGHT
                          && System.nanoTime() - start < timeout) {
                        Thread.sleep(1);
                      }
                      rig.produceUntimed(PER_TRANSACTION, dest);
                    }
                    return null;
                  }));
        }
        for (Future<?> f : running) {
          f.get();
        }
      } finally {
        producers.shutdownNow();
      }
      long produced = roundUp(total);
      long delivered =
          seen.awaitDelivered(produced, Math.max(0, timeout - (System.nanoTime() - start)));
      long left = OutboxRows.count(context.database());
      while (left > 0 && System.nanoTime() - start < timeout) {
        Thread.sleep(5);
        left = OutboxRows.count(context.database());
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      if (delivered < 0 || left > 0) {
        context.note(
            String.format(
                "%s: cut short by --timeout after %.0f s: %d accepted of %d, %d rows left",
                broker, seconds, seen.deliveredCount(), produced, left));
      }
      context.record(
          broker + ".msgs",
          broker + ": enqueue → accepted → deleted",
          "msgs/s",
          (produced - left) / seconds);
    }
  }

  private static long roundUp(long total) {
    return (total + PER_TRANSACTION - 1) / PER_TRANSACTION * PER_TRANSACTION;
  }

  /** Reports every message its delegate accepted to a {@link DeliveryProbe}. */
  // Transport.close() throws Exception; this one only passes its delegate's on.
  @SuppressWarnings("try")
  private static final class Counting implements Transport {
    private final Transport delegate;
    private final DeliveryProbe probe;

    Counting(Transport delegate, DeliveryProbe probe) {
      this.delegate = delegate;
      this.probe = probe;
    }

    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public int maxBatchSize() {
      return delegate.maxBatchSize();
    }

    @Override
    public boolean preservesBatchOrder() {
      return delegate.preservesBatchOrder();
    }

    @Override
    public List<SendResult> send(TransportBatch batch) throws Exception {
      List<SendResult> results = delegate.send(batch);
      for (SendResult r : results) {
        if (r.isAccepted()) {
          probe.delivered(-1);
        }
      }
      return results;
    }

    @Override
    public void close() throws Exception {
      delegate.close();
    }
  }
}
