package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.RelayerDispatcher;
import dev.relayer.dispatch.RelayerMaintenance;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.testkit.transport.ConsumedMessage;
import dev.relayer.transport.kafka.KafkaTransport;
import dev.relayer.transport.nats.NatsTransport;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Messages a broker can never carry, with the real adapters and a real PostgreSQL: refused at
 * enqueue while a dispatcher with those transports is running, and rejected on their own — dead
 * after one attempt, their batch delivered — when they were written without the check.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnsendableMessagesIT {

  private static final Table<Record> OUTBOX = table(name("public", "relayer_outbox"));
  private static final Table<Record> DEAD = table(name("public", "relayer_outbox_dead"));

  private RabbitMqFixture rabbit;
  private TestDatabase db;
  private DSLContext dsl;
  private RelayerStore store;
  private final List<AutoCloseable> resources = new ArrayList<>();

  @BeforeAll
  void connect() throws Exception {
    rabbit = RabbitMqFixture.direct(false);
  }

  @AfterAll
  void disconnect() throws Exception {
    if (rabbit != null) {
      rabbit.close();
    }
  }

  @BeforeEach
  void createDatabase() {
    db = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    store = RelayerStore.create(StoreOptions.defaults());
  }

  @AfterEach
  void dropDatabase() throws Exception {
    try {
      for (int i = resources.size() - 1; i >= 0; i--) {
        resources.get(i).close();
      }
      resources.clear();
    } finally {
      db.close();
    }
  }

  private <T extends AutoCloseable> T track(T resource) {
    resources.add(resource);
    return resource;
  }

  private static NewMessage message(String transport, String destination, String type) {
    return NewMessage.builder()
        .transport(transport)
        .destination(destination)
        .messageType(type)
        .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .body("{}".getBytes(UTF_8))
        .build();
  }

  @Test
  void aMessageTypeTooLongForAmqpGoesDeadAloneWhileTheSweeperDeliversTheRestOfItsBatch()
      throws Exception {
    String queue = rabbit.createDestination();
    List<NewMessage> good = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      good.add(message(RabbitMqTransport.DEFAULT_NAME, queue, "order.placed"));
    }
    NewMessage unsendable = message(RabbitMqTransport.DEFAULT_NAME, queue, "t".repeat(300));
    // Written by an instance that runs no dispatcher, so nothing checked it at enqueue.
    dsl.transaction(
        tx ->
            store.enqueue(
                tx.dsl(), List.of(good.get(0), good.get(1), unsendable, good.get(2), good.get(3))));

    RelayerDispatcher dispatcher =
        track(
            RelayerDispatcher.builder(store, dsl).transport(track(rabbit.openTransport())).build());
    RelayerMaintenance maintenance =
        track(
            RelayerMaintenance.create(
                dispatcher, MaintenanceOptions.builder().recoveryDelay(Duration.ZERO).build()));
    assertThat(maintenance.sweepOnce().sent()).isEqualTo(4);

    List<ConsumedMessage> consumed = rabbit.consume(queue, 5, Duration.ofSeconds(3));
    assertThat(consumed.stream().map(ConsumedMessage::messageId))
        .containsExactlyElementsOf(good.stream().map(m -> m.messageId().toString()).toList());
    assertThat(dsl.fetchCount(OUTBOX)).isZero();
    Record dead = dsl.selectFrom(DEAD).fetchSingle();
    assertThat(dead.get("message_id")).isEqualTo(unsendable.messageId());
    assertThat(dead.get("reason")).isEqualTo("rejected");
    assertThat(dead.get("attempts", Integer.class)).isEqualTo(1);
    assertThat(dead.get("last_error", String.class))
        .isEqualTo(
            "not sent: messageType is 300 bytes of UTF-8; an AMQP message type holds at most 255");
  }

  @Test
  void enqueueRefusesWhatTheRegisteredBrokersCanNeverCarryAndWritesNothing() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    Properties kafka = new Properties();
    kafka.put("bootstrap.servers", "127.0.0.1:" + closedPort);
    // None of these connects: the checks need no broker.
    RelayerDispatcher dispatcher =
        track(
            RelayerDispatcher.builder(store, dsl)
                .transport(
                    track(RabbitMqTransport.builder().uri(RabbitMqFixture.brokerUri()).build()))
                .transport(track(NatsTransport.builder().url("nats://127.0.0.1:4222").build()))
                .transport(track(KafkaTransport.builder().properties(kafka).build()))
                .build());
    NewMessage nonAsciiHeader =
        NewMessage.builder()
            .transport(NatsTransport.DEFAULT_NAME)
            .destination("orders.created")
            .messageType("order.created")
            .header("x-city", "Zürich")
            .body(new byte[] {1})
            .build();
    List<String> problemsSeen = new ArrayList<>();
    List<Integer> rowsInTheTransaction = new ArrayList<>();

    dsl.transaction(
        tx -> {
          for (NewMessage refused :
              List.of(
                  nonAsciiHeader,
                  message(NatsTransport.DEFAULT_NAME, "orders.*", "t"),
                  message(NatsTransport.DEFAULT_NAME, "orders created", "t"),
                  message(KafkaTransport.DEFAULT_NAME, "orders/created", "t"),
                  message(RabbitMqTransport.DEFAULT_NAME, "/", "t"),
                  message(RabbitMqTransport.DEFAULT_NAME, "/queue", "t".repeat(256)))) {
            assertThatThrownBy(() -> store.enqueue(tx.dsl(), List.of(refused)))
                .isInstanceOfSatisfying(
                    InvalidInputException.class, e -> problemsSeen.addAll(e.problems()));
          }
          rowsInTheTransaction.add(tx.dsl().fetchCount(OUTBOX));
          // A transport registered in another process: written unchecked.
          store.enqueue(tx.dsl(), message("elsewhere", "any thing/at all", "t"));
        });

    assertThat(rowsInTheTransaction).containsExactly(0);
    assertThat(problemsSeen)
        .containsExactly(
            "header 'x-city': its value has 'ü' (U+00FC) at index 1; NATS header values are"
                + " US-ASCII without CR or LF",
            "destination 'orders.*' is not a NATS subject to publish to: it has a wildcard token",
            "destination 'orders created' is not a NATS subject to publish to: it contains"
                + " whitespace",
            "destination 'orders/created' is not a Kafka topic: topic names use only a-z, A-Z,"
                + " 0-9, '.', '_' and '-'",
            "destination '/' names the default exchange without a routing key; write '/queue'",
            "messageType is 256 bytes of UTF-8; an AMQP message type holds at most 255");
    List<String> transports =
        dsl.fetchValues(DSL.select(DSL.field(name("transport"), String.class)).from(OUTBOX));
    assertThat(transports).containsExactly("elsewhere");
    dispatcher.close();
  }
}
