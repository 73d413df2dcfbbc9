package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.spi.Transport;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.LaneOptions;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.Relayer;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.testkit.transport.ConsumedMessage;
import dev.relayer.testkit.transport.RestartableBrokerFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A broker outage is not poison, through every real broker: the broker goes away (its process
 * stopped, or the network to it cut) while applications keep writing ordered and unordered
 * messages, and stays away for several times what every row's attempts would last with {@code
 * maxAttempts = 2} and a sub-second backoff. When it comes back, every message is delivered, in
 * order per key, and nothing was moved to the dead table or parked. Without the outage rule the
 * rows of this test are dead or parked within a second of the outage's start.
 *
 * <p>The same mechanism holds with the default options for an outage of any length: the longer run
 * is described with its result in the reliability docs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class BrokerOutageContract {

  private static final SchemaOptions SCHEMA = SchemaOptions.of("public", "outage_");
  private static final List<String> KEYS = List.of("customer-a", "customer-b");

  /** How long the broker stays away: many times two attempts' backoff. */
  static final Duration OUTAGE = Duration.ofSeconds(8);

  /** A broker this test may stop and start; owned by the subclass. */
  protected abstract RestartableBrokerFixture broker();

  /** Starts the outage: by default the broker goes away ({@link RestartableBrokerFixture#stop}). */
  protected void breakBroker() throws Exception {
    broker().stop();
  }

  /** Ends the outage: by default the broker comes back ({@link RestartableBrokerFixture#start}). */
  protected void healBroker() throws Exception {
    broker().start();
  }

  TestDatabase db;
  DSLContext dsl;

  @BeforeEach
  void createDatabase() {
    db = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(db.dataSource(), SCHEMA);
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterEach
  void dropDatabase() {
    db.close();
  }

  private long count(String table, String condition) {
    return dsl.fetchCount(
        DSL.table(DSL.name("public", "outage_" + table)), DSL.condition(condition));
  }

  @Test
  void anOutageLongerThanEveryRowsAttemptsKillsAndParksNothingAndEverythingIsDeliveredAfter()
      throws Exception {
    RestartableBrokerFixture broker = broker();
    String destination = broker.createDestination();
    Transport transport = broker.openTransport();
    List<String> unordered = new ArrayList<>();
    Map<String, List<String>> byKey = new HashMap<>();
    KEYS.forEach(k -> byKey.put(k, new ArrayList<>()));
    try (Relayer relayer =
        Relayer.builder(db.dataSource())
            .prefix(SCHEMA.tablePrefix())
            .transport(transport)
            .dispatch(
                DispatchOptions.builder()
                    .maxAttempts(2)
                    .backoffInitial(Duration.ofMillis(100))
                    .backoffMax(Duration.ofMillis(500))
                    .sendTimeout(Duration.ofSeconds(1))
                    .build())
            .maintenance(
                MaintenanceOptions.builder()
                    .recoveryDelay(Duration.ofSeconds(1))
                    .sweepInterval(Duration.ofMillis(200))
                    .build())
            .lanes(LaneOptions.builder().pollInterval(Duration.ofMillis(200)).build())
            .build()) {
      relayer.start();
      // Connected first: the outage meets open connections, as in production.
      UUID warmUp = UUID.randomUUID();
      relayer
          .dsl()
          .transaction(
              tx ->
                  relayer
                      .store()
                      .enqueue(tx.dsl(), message(transport.name(), warmUp, destination, null)));
      broker.consumeUntil(
          destination,
          received -> received.stream().anyMatch(m -> m.messageId().equals(warmUp.toString())),
          Duration.ofSeconds(60));
      breakBroker();
      long outageEnds;
      try {
        long started = System.nanoTime();
        outageEnds = started + OUTAGE.toNanos();
        // Writers go on through the outage: a round every half second for its first half.
        for (int round = 0; System.nanoTime() < started + OUTAGE.toNanos() / 2; round++) {
          List<NewMessage> messages = new ArrayList<>();
          UUID plain = UUID.randomUUID();
          unordered.add(plain.toString());
          messages.add(message(transport.name(), plain, destination, null));
          for (String key : KEYS) {
            UUID id = UUID.randomUUID();
            byKey.get(key).add(id.toString());
            messages.add(message(transport.name(), id, destination, key));
          }
          relayer.dsl().transaction(tx -> relayer.store().enqueue(tx.dsl(), messages));
          Thread.sleep(500);
        }
        while (System.nanoTime() < outageEnds) {
          assertThat(count("outbox_dead", "true")).as("dead rows during the outage").isZero();
          assertThat(count("outbox", "status = 'parked'")).as("parked keys during").isZero();
          Thread.sleep(250);
        }
        assertThat(count("outbox", "last_error is not null"))
            .as("rows that met the outage (their sends failed)")
            .isPositive();
      } finally {
        healBroker();
      }

      Set<String> wanted = new HashSet<>(unordered);
      byKey.values().forEach(wanted::addAll);
      List<ConsumedMessage> consumed =
          broker.consumeUntil(
              destination,
              received ->
                  received.stream().map(ConsumedMessage::messageId).toList().containsAll(wanted),
              Duration.ofSeconds(90));
      List<String> ids = consumed.stream().map(ConsumedMessage::messageId).toList();
      assertThat(ids).containsAll(wanted);
      for (String key : KEYS) {
        assertThat(firstDeliveries(ids, byKey.get(key)))
            .as("first deliveries of %s, in order", key)
            .containsExactlyElementsOf(byKey.get(key));
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(count("outbox", "true")).as("outbox rows").isZero());
      assertThat(count("outbox_dead", "true")).as("dead rows").isZero();
    }
  }

  /** The ids of {@code keyIds} in the order of their first delivery. */
  private static List<String> firstDeliveries(List<String> delivered, List<String> keyIds) {
    Set<String> ofKey = new HashSet<>(keyIds);
    List<String> first = new ArrayList<>();
    for (String id : delivered) {
      if (ofKey.contains(id) && !first.contains(id)) {
        first.add(id);
      }
    }
    return first;
  }

  private static NewMessage message(String transport, UUID id, String destination, String key) {
    NewMessage.Builder builder =
        NewMessage.builder()
            .messageId(id)
            .transport(transport)
            .destination(destination)
            .messageType("OrderPlaced")
            .body("{}".getBytes(UTF_8));
    return key == null ? builder.build() : builder.orderingKey(key).build();
  }
}
