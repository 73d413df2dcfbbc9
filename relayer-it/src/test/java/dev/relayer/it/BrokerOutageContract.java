package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A broker outage is not poison, through every real broker: the broker goes away (its process
 * stopped, the network to it cut, or stalled) while applications keep writing ordered and unordered
 * messages, and stays away for longer than every row's attempts would last. When it comes back,
 * every message is delivered, in order per key, and nothing was moved to the dead table or parked.
 *
 * <p>Every build runs {@link OutageRun#quick()}: 8 seconds with {@code maxAttempts = 2} and a
 * sub-second backoff, so that without the outage rule the rows are dead or parked within a second
 * of the outage's start. The {@code *SoakIT} subclasses (profile {@code outage-soak}) run {@link
 * OutageRun#soak()}: the default options for ten minutes, with the drain time after the heal
 * measured and printed; the reliability docs give the result.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class BrokerOutageContract {

  private static final SchemaOptions SCHEMA = SchemaOptions.of("public", "outage_");
  private static final List<String> KEYS = List.of("customer-a", "customer-b", "customer-c");

  /**
   * How a run goes: the options Relayer runs with, how long the broker stays away, how long and how
   * often writers write meanwhile (one unordered message and one per key each round), and how long
   * the outbox may take to drain after the heal.
   */
  record OutageRun(
      DispatchOptions dispatch,
      MaintenanceOptions maintenance,
      LaneOptions lanes,
      Duration outage,
      Duration writing,
      Duration writeEvery,
      Duration drainTimeout) {

    /** Every build's: 8 s, many times two attempts' backoff; writers for its first half. */
    static OutageRun quick() {
      return new OutageRun(
          DispatchOptions.builder()
              .maxAttempts(2)
              .backoffInitial(Duration.ofMillis(100))
              .backoffMax(Duration.ofMillis(500))
              .sendTimeout(Duration.ofSeconds(1))
              .build(),
          MaintenanceOptions.builder()
              .recoveryDelay(Duration.ofSeconds(1))
              .sweepInterval(Duration.ofMillis(200))
              .build(),
          LaneOptions.builder().pollInterval(Duration.ofMillis(200)).build(),
          Duration.ofSeconds(8),
          Duration.ofSeconds(4),
          Duration.ofMillis(500),
          Duration.ofSeconds(90));
    }

    /**
     * The soak: every option at its default, an outage of {@value #DURATION_PROPERTY} (ISO-8601,
     * default 10 minutes) with writers throughout, 10 messages a second; the drain may take up to
     * three times {@code backoffMax}.
     */
    static OutageRun soak() {
      DispatchOptions dispatch = DispatchOptions.defaults();
      Duration outage = Duration.parse(System.getProperty(DURATION_PROPERTY, "PT10M"));
      return new OutageRun(
          dispatch,
          MaintenanceOptions.defaults(),
          LaneOptions.defaults(),
          outage,
          outage,
          Duration.ofMillis(400),
          dispatch.backoffMax().multipliedBy(3));
    }

    static final String DURATION_PROPERTY = "relayer.outage.duration";
  }

  /** The run this class makes: {@link OutageRun#quick()} unless a soak says otherwise. */
  protected OutageRun run() {
    return OutageRun.quick();
  }

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
    OutageRun run = run();
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
            .dispatch(run.dispatch())
            .maintenance(run.maintenance())
            .lanes(run.lanes())
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
          destination, new AllArrived(Set.of(warmUp.toString())), Duration.ofSeconds(60));
      breakBroker();
      try {
        long started = System.nanoTime();
        long outageEnds = started + run.outage().toNanos();
        long writingEnds = started + run.writing().toNanos();
        // Writers go on through the outage, a round every writeEvery; nothing may die meanwhile.
        for (long round = started; round < outageEnds; round += run.writeEvery().toNanos()) {
          long wait = round - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
          if (round < writingEnds) {
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
          }
          assertThat(count("outbox_dead", "true")).as("dead rows during the outage").isZero();
          assertThat(count("outbox", "status = 'parked'")).as("parked keys during").isZero();
        }
        assertThat(count("outbox", "last_error is not null"))
            .as("rows that met the outage (their sends failed)")
            .isPositive();
      } finally {
        healBroker();
      }
      // Drained when the outbox is empty: a row is deleted once the broker has accepted it.
      long healed = System.nanoTime();
      long left = count("outbox", "true");
      while (left > 0 && System.nanoTime() - healed < run.drainTimeout().toNanos()) {
        Thread.sleep(200);
        left = count("outbox", "true");
      }
      Duration drain = Duration.ofMillis((System.nanoTime() - healed) / 1_000_000);
      long dead = count("outbox_dead", "true");
      long parked = count("outbox", "status = 'parked'");

      Set<String> wanted = new HashSet<>(unordered);
      byKey.values().forEach(wanted::addAll);
      List<String> ids =
          broker.consumeUntil(destination, new AllArrived(wanted), Duration.ofMinutes(2)).stream()
              .map(ConsumedMessage::messageId)
              .toList();
      Set<String> delivered = new HashSet<>(ids);
      delivered.retainAll(wanted);
      boolean ordered =
          KEYS.stream()
              .allMatch(key -> firstDeliveries(ids, byKey.get(key)).equals(byKey.get(key)));
      System.out.printf(
          "outage result: %s outage=%s written=%d (ordered %d on %d keys) delivered=%d"
              + " (%d duplicates) dead=%d parked=%d left=%d per-key order %s drain=%s%n",
          getClass().getSimpleName(),
          run.outage(),
          wanted.size(),
          wanted.size() - unordered.size(),
          KEYS.size(),
          delivered.size(),
          ids.stream().filter(wanted::contains).count() - delivered.size(),
          dead,
          parked,
          left,
          ordered ? "kept" : "BROKEN",
          left == 0 ? drain : "over " + run.drainTimeout());
      assertThat(left).as("outbox rows %s after the heal", run.drainTimeout()).isZero();
      assertThat(ids).containsAll(wanted);
      for (String key : KEYS) {
        assertThat(firstDeliveries(ids, byKey.get(key)))
            .as("first deliveries of %s, in order", key)
            .containsExactlyElementsOf(byKey.get(key));
      }
      assertThat(dead).as("dead rows").isZero();
    }
  }

  /** Enough once every id of {@code wanted} has arrived; reads each delivery once. */
  private static final class AllArrived implements Predicate<List<ConsumedMessage>> {

    private final Set<String> missing;
    private int seen;

    AllArrived(Set<String> wanted) {
      this.missing = new HashSet<>(wanted);
    }

    @Override
    public boolean test(List<ConsumedMessage> received) {
      for (; seen < received.size(); seen++) {
        missing.remove(received.get(seen).messageId());
      }
      return missing.isEmpty();
    }
  }

  /** The ids of {@code keyIds} in the order of their first delivery. */
  private static List<String> firstDeliveries(List<String> delivered, List<String> keyIds) {
    Set<String> ofKey = new HashSet<>(keyIds);
    Set<String> first = new LinkedHashSet<>();
    for (String id : delivered) {
      if (ofKey.contains(id)) {
        first.add(id);
      }
    }
    return new ArrayList<>(first);
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
