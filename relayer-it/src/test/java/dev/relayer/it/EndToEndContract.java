package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.relayer.api.RelayerHeaders;
import dev.relayer.api.spi.Transport;
import dev.relayer.dispatch.LaneOptions;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.RelayerDispatcher;
import dev.relayer.dispatch.RelayerLanes;
import dev.relayer.dispatch.RelayerMaintenance;
import dev.relayer.it.BillingConsumer.Received;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.InboxOutcome;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.testkit.transport.ConsumedMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The whole path of a message against one real broker and a real PostgreSQL: an application
 * transaction writes a business row and enqueues messages; after the commit the dispatcher sends
 * them with the broker's real transport and deletes their rows; a real consumer of the broker hands
 * each message to {@link BillingConsumer}, which records its id in the inbox and does its work in
 * one transaction, then acknowledges it to the broker.
 *
 * <p>{@link #killSenderAfterAcceptanceThenSweep} is the crash window of at-least-once delivery: a
 * real application process ({@link CrashAfterBrokerAcceptMain}) dies after the broker accepted a
 * message and before the delete; the sweeper of a surviving instance sends the same message id
 * again through the real transport. Each broker's test says what becomes of that replay.
 *
 * <p>Each test gets a fresh database; subclasses own their broker fixture (one per class) and
 * delete what they created on it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class EndToEndContract {

  static final Duration WAIT = Duration.ofSeconds(30);

  private static final Table<Record> ORDERS = table(name("orders"));
  private static final Table<Record> OUTBOX = table(name("public", "relayer_outbox"));

  private final List<AutoCloseable> resources = new ArrayList<>();
  private TestDatabase db;
  protected DSLContext dsl;
  protected RelayerStore store;

  /** The transport's name, which rows carry; the transport's default name. */
  protected abstract String transportName();

  /** A new real transport connected to the broker. */
  protected abstract Transport openTransport() throws Exception;

  /** A fresh destination (a queue, a topic, a subject with its stream) owned by the test class. */
  protected abstract String createDestination() throws Exception;

  /**
   * Starts a real consumer of the broker on {@code destination} that hands every message to {@code
   * billing} and acknowledges it to the broker only after {@link BillingConsumer#handle} returned.
   * Closing it stops the consumer.
   */
  protected abstract AutoCloseable startConsumer(String destination, BillingConsumer billing)
      throws Exception;

  /** The broker's address as {@link CrashAfterBrokerAcceptMain} takes it. */
  protected abstract String senderAddress();

  /**
   * A fresh destination on which the broker refuses, one by one, messages whose body is longer than
   * {@code maxBodyBytes} and keeps shorter ones (the broker fixture's).
   */
  protected abstract String createDestinationRejectingBodiesOver(int maxBodyBytes) throws Exception;

  @BeforeEach
  void createDatabase() {
    db = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    store = RelayerStore.create(StoreOptions.defaults());
    dsl.createTable(ORDERS).column("id", SQLDataType.INTEGER.notNull()).execute();
    BillingConsumer.createTables(dsl);
  }

  @AfterEach
  void dropDatabase() throws Exception {
    try {
      List<AutoCloseable> open = new ArrayList<>(resources);
      Collections.reverse(open);
      resources.clear();
      for (AutoCloseable resource : open) {
        resource.close();
      }
    } finally {
      db.close();
    }
  }

  /** Closes {@code resource} after the test, before its database goes, in reverse order. */
  protected <T extends AutoCloseable> T track(T resource) {
    resources.add(resource);
    return resource;
  }

  @Test
  void aCommittedMessageIsDispatchedConsumedIntoTheInboxAndDeletedFromTheOutbox() throws Exception {
    String destination = createDestination();
    BillingConsumer billing = new BillingConsumer(store, dsl);
    track(startConsumer(destination, billing));
    RelayerDispatcher dispatcher =
        track(RelayerDispatcher.builder(store, dsl).transport(track(openTransport())).build());
    dispatcher.start();
    DSLContext app =
        DSL.using(dsl.configuration().deriveAppending(dispatcher.transactionListener()));
    List<NewMessage> placed = new ArrayList<>();
    for (int order = 1; order <= 3; order++) {
      // The first order's tenant travels to the consumer; the others have none.
      placed.add(
          OrderPlaced.message(
              transportName(),
              destination,
              UUID.randomUUID(),
              order,
              order == 1 ? "acme-eu" : null));
    }

    app.transaction(
        tx -> {
          for (int order = 1; order <= placed.size(); order++) {
            tx.dsl().insertInto(ORDERS).columns(field(name("id"))).values(order).execute();
          }
          store.enqueue(tx.dsl(), placed);
        }); // committed: the listener hands the ids to the dispatcher

    await().atMost(WAIT).until(() -> billing.received().size() >= placed.size());
    await().atMost(WAIT).until(() -> outboxCount() == 0);
    List<Received> received = billing.received();
    assertThat(received).hasSize(placed.size()).allMatch(r -> r.outcome() == InboxOutcome.FIRST);
    Map<String, ConsumedMessage> byId = new HashMap<>();
    received.forEach(r -> byId.put(r.message().messageId(), r.message()));
    for (NewMessage sent : placed) {
      assertRoundTrip(sent, byId.get(sent.messageId().toString()));
    }
    List<UUID> ids = placed.stream().map(NewMessage::messageId).collect(Collectors.toList());
    assertThat(billing.inboxIds()).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(billing.invoicedIds()).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(dsl.fetchCount(ORDERS)).isEqualTo(placed.size());
  }

  /**
   * Ordered messages through the lanes and the broker's real transport, which does not keep a
   * batch's order: each claim takes a run of every key and sends it in waves. The broker refuses
   * one message in the middle of a key's run (its body is over the destination's limit); the key's
   * earlier messages arrive, none after the refused one does, and the other keys arrive whole —
   * each key in the order it was written.
   */
  @Test
  void orderedRunsReachTheBrokerInKeyOrderAndARefusalMidRunHoldsOnlyTheRestOfItsKey()
      throws Exception {
    String destination = createDestinationRejectingBodiesOver(10_000);
    BillingConsumer billing = new BillingConsumer(store, dsl);
    track(startConsumer(destination, billing));
    RelayerDispatcher dispatcher =
        track(RelayerDispatcher.builder(store, dsl).transport(track(openTransport())).build());
    dispatcher.start();
    Map<String, List<String>> written = new LinkedHashMap<>();
    List<NewMessage> messages = new ArrayList<>();
    String refused = null;
    for (int i = 1; i <= 20; i++) {
      for (String key : List.of("key-a", "key-b", "key-c")) {
        UUID id = UUID.randomUUID();
        boolean refuse = key.equals("key-a") && i == 8;
        byte[] body =
            refuse
                ? new byte[20_000]
                : ("{\"key\":\"" + key + "\",\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8);
        messages.add(
            NewMessage.builder()
                .messageId(id)
                .transport(transportName())
                .destination(destination)
                .messageType(OrderPlaced.TYPE)
                .orderingKey(key)
                .body(body)
                .build());
        written.computeIfAbsent(key, k -> new ArrayList<>()).add(id.toString());
        if (refuse) {
          refused = id.toString();
        }
      }
    }
    store.enqueue(dsl, messages);
    String refusedId = refused;
    RelayerLanes lanes =
        track(
            RelayerLanes.builder(dispatcher)
                .options(LaneOptions.builder().pollInterval(Duration.ofMillis(200)).build())
                .build());
    lanes.start();

    int expected = 7 + 20 + 20;
    await().atMost(WAIT).until(() -> billing.received().size() >= expected);
    await().atMost(WAIT).until(() -> outboxCount() == 13 && heldAfterAFailure(refusedId));
    // The held key's later messages stay held: a further second of passes sends none of them.
    Thread.sleep(1_000);
    List<Received> received = billing.received();
    assertThat(received).hasSize(expected).allMatch(r -> r.outcome() == InboxOutcome.FIRST);
    Map<String, List<String>> arrived = new LinkedHashMap<>();
    for (Received r : received) {
      String id = r.message().messageId();
      written.forEach(
          (key, ids) -> {
            if (ids.contains(id)) {
              arrived.computeIfAbsent(key, k -> new ArrayList<>()).add(id);
            }
          });
    }
    assertThat(arrived.get("key-a"))
        .as("key-a: its seven messages before the refused one, in order")
        .containsExactlyElementsOf(written.get("key-a").subList(0, 7));
    assertThat(arrived.get("key-b")).containsExactlyElementsOf(written.get("key-b"));
    assertThat(arrived.get("key-c")).containsExactlyElementsOf(written.get("key-c"));
  }

  /**
   * Whether the row of message {@code messageId} is held after a failed send (retrying or parked).
   */
  private boolean heldAfterAFailure(String messageId) {
    return dsl.fetchExists(
        DSL.selectOne()
            .from(OUTBOX)
            .where(field(name("message_id"), UUID.class).eq(UUID.fromString(messageId)))
            .and(field(name("last_error"), String.class).isNotNull()));
  }

  /**
   * Runs {@link CrashAfterBrokerAcceptMain} against the broker, which enqueues one {@link
   * OrderPlaced} on {@code destination}, lets the broker accept it and dies before the delete. The
   * consumer processes that first copy. Then a surviving instance's sweeper, once the dead claim
   * expired, sends the same message id again through a new real transport and deletes the row.
   *
   * <p>Checks what holds for every broker: the process died in the crash window, its row outlived
   * it with one attempt, the first copy was new to the inbox, the sweeper sent one message and
   * emptied the outbox, every copy the consumer saw is the same message, and the consumer's work
   * was done exactly once.
   *
   * @param expectedDeliveries copies the consumer sees in all: 2 where the broker keeps the replay,
   *     1 where it drops it
   * @return every delivery the consumer handled, in order
   */
  protected List<Received> killSenderAfterAcceptanceThenSweep(
      String destination, int expectedDeliveries) throws Exception {
    BillingConsumer billing = new BillingConsumer(store, dsl);
    track(startConsumer(destination, billing));
    UUID messageId = UUID.randomUUID();
    NewMessage sent = OrderPlaced.message(transportName(), destination, messageId, 7);

    CliProcess sender =
        CliProcess.runMain(
            CrashAfterBrokerAcceptMain.class,
            List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
            List.of(
                db.jdbcUrl(),
                db.user(),
                transportName(),
                senderAddress(),
                destination,
                messageId.toString()),
            db.password() == null
                ? Map.of()
                : Map.of(CrashAfterBrokerAcceptMain.PASSWORD_VARIABLE, db.password()));

    assertThat(sender.exitCode())
        .as("the sender died between the broker's acceptance and the delete: %s", sender.err())
        .isEqualTo(137);
    assertThat(outboxCount()).as("the row outlived its sender").isEqualTo(1);
    assertThat(dsl.fetchValue(DSL.select(field(name("attempts"), Integer.class)).from(OUTBOX)))
        .isEqualTo(1);
    await().atMost(WAIT).until(() -> billing.received().size() >= 1);
    assertThat(billing.received().get(0).outcome())
        .as("the copy the broker accepted before the crash")
        .isEqualTo(InboxOutcome.FIRST);

    RelayerDispatcher survivor =
        track(RelayerDispatcher.builder(store, dsl).transport(track(openTransport())).build());
    RelayerMaintenance maintenance =
        track(
            RelayerMaintenance.create(
                survivor, MaintenanceOptions.builder().recoveryDelay(Duration.ZERO).build()));
    // Nothing is sent while the dead sender's claim holds; then one pass replays the row.
    await()
        .atMost(CrashAfterBrokerAcceptMain.CLAIM_DURATION.plus(WAIT))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> maintenance.sweepOnce().sent() == 1);
    assertThat(outboxCount()).as("the replay was accepted and its row deleted").isZero();

    await().atMost(WAIT).until(() -> billing.received().size() >= expectedDeliveries);
    List<Received> received = billing.received();
    assertThat(received).hasSize(expectedDeliveries);
    for (Received copy : received) {
      assertRoundTrip(sent, copy.message());
    }
    assertThat(billing.inboxIds()).containsExactly(messageId);
    assertThat(billing.invoicedIds())
        .as("the consumer's work, done once")
        .containsExactly(messageId);
    return received;
  }

  /** Id, type, headers and body arrived as they were enqueued. */
  static void assertRoundTrip(NewMessage sent, ConsumedMessage received) {
    assertThat(received).as("received %s", sent.messageId()).isNotNull();
    assertThat(received.messageId()).isEqualTo(sent.messageId().toString());
    assertThat(received.messageType()).isEqualTo(sent.messageType());
    assertThat(received.headers()).containsAllEntriesOf(sent.headers());
    if (sent.tenantId() == null) {
      assertThat(received.headers()).doesNotContainKey(RelayerHeaders.TENANT_ID);
    } else {
      assertThat(received.headers()).containsEntry(RelayerHeaders.TENANT_ID, sent.tenantId());
    }
    assertThat(received.body()).isEqualTo(sent.body());
  }

  private int outboxCount() {
    return dsl.fetchCount(OUTBOX);
  }
}
