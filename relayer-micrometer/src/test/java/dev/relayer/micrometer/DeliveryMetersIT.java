package dev.relayer.micrometer;

import static dev.relayer.micrometer.MetricsFixture.message;
import static dev.relayer.micrometer.MetricsFixture.ordered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.Retention;
import dev.relayer.store.InboxOutcome;
import dev.relayer.transport.memory.InMemoryTransport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The counters and timers, fed by real dispatch on PostgreSQL through in-memory transports that
 * accept, fail, reject for good and hang.
 */
class DeliveryMetersIT {

  private MetricsFixture fixture;
  private SimpleMeterRegistry registry;

  @BeforeEach
  void setUp() {
    fixture = new MetricsFixture();
    registry = new SimpleMeterRegistry();
  }

  @AfterEach
  void tearDown() throws Exception {
    fixture.close();
  }

  @Test
  void sendsFailuresDeadAndParkedRowsAreCountedWithTheirTransportAndReason() {
    InMemoryTransport ok = InMemoryTransport.named("ok");
    InMemoryTransport flaky = InMemoryTransport.named("flaky").reject(m -> true, "broker away");
    InMemoryTransport poison =
        InMemoryTransport.named("poison").rejectPermanently(m -> true, "no such queue");
    Relayer relayer =
        fixture.track(
            fixture.fastRelayer(ok, flaky, poison).lanes(MetricsFixture.fastLanes()).build());
    RelayerMetrics metrics = fixture.track(RelayerMetrics.builder(relayer, registry).build());
    relayer.start();

    relayer
        .dsl()
        .transaction(
            tx -> {
              relayer
                  .store()
                  .enqueue(tx.dsl(), java.util.Collections.nCopies(5, message("ok", "orders")));
              relayer.store().enqueue(tx.dsl(), message("flaky", "orders"));
              relayer.store().enqueue(tx.dsl(), message("poison", "orders"));
              relayer.store().enqueue(tx.dsl(), ordered("poison", "orders", "customer-1"));
            });

    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count("relayer.outbox.sent", "transport", "ok") == 5
                    && count("relayer.outbox.dead", "transport", "flaky") == 1
                    && count("relayer.outbox.dead", "transport", "poison") == 1
                    && count("relayer.outbox.parked", "transport", "poison") == 1);

    String store = metrics.store();
    assertThat(store).isEqualTo("public.relayer_");
    // The flaky row failed on each of its three attempts, then went dead out of attempts.
    assertThat(counter("relayer.outbox.failed", "transport", "flaky", "reason", "transient"))
        .isEqualTo(3);
    assertThat(counter("relayer.outbox.dead", "transport", "flaky", "reason", "max-attempts"))
        .isEqualTo(1);
    // Rejected for good: one failed send each, the unordered row dead, the ordered head parked.
    assertThat(counter("relayer.outbox.failed", "transport", "poison", "reason", "permanent"))
        .isEqualTo(2);
    assertThat(counter("relayer.outbox.dead", "transport", "poison", "reason", "rejected"))
        .isEqualTo(1);
    assertThat(count("relayer.outbox.sent", "transport", "flaky")).isZero();
    assertThat(count("relayer.outbox.sent", "transport", "poison")).isZero();

    Timer commitToSend =
        registry.get("relayer.outbox.commit.to.send").tag("transport", "ok").timer();
    assertThat(commitToSend.count()).isEqualTo(5);
    assertThat(commitToSend.max(TimeUnit.SECONDS)).isBetween(0.0, 30.0);

    Timer successes =
        registry
            .get("relayer.outbox.send")
            .tags("store", store, "transport", "ok", "outcome", "success")
            .timer();
    assertThat(successes.count()).isPositive();
    assertThat(
            registry
                .get("relayer.outbox.send.batch.size")
                .tag("transport", "ok")
                .summary()
                .totalAmount())
        .isEqualTo(5);
    assertThat(
            registry
                .get("relayer.outbox.send")
                .tags("transport", "flaky", "outcome", "failure")
                .timer()
                .count())
        .isEqualTo(3);
    assertThat(timerCount("relayer.pass", "kind", "direct")).isPositive();
    assertThat(timerCount("relayer.pass", "kind", "sweep")).isPositive();
    assertThat(timerCount("relayer.pass", "kind", "lane")).isPositive();
    // Four enqueue calls, one of five messages.
    assertThat(timerCount("relayer.outbox.enqueue")).isEqualTo(4);
    assertThat(registry.get("relayer.outbox.enqueued").counter().count()).isEqualTo(8);
    assertThat(registry.get("relayer.outbox.handoffs.dropped").counter().count()).isZero();
    // No meter names a message id, key or destination.
    for (Meter meter : registry.getMeters()) {
      assertThat(meter.getId().getTags())
          .allSatisfy(
              t ->
                  assertThat(t.getKey())
                      .isIn(
                          "store",
                          "transport",
                          "outcome",
                          "reason",
                          "kind",
                          "holder",
                          "table",
                          "consumer"));
    }
  }

  @Test
  void aSendThatTimesOutIsCountedAsATimeoutThenItsRetryAsSent() {
    InMemoryTransport slow = InMemoryTransport.named("slow").hang(Duration.ofSeconds(3));
    Relayer relayer = fixture.track(fixture.fastRelayer(slow).withoutLanes().build());
    fixture.track(RelayerMetrics.builder(relayer, registry).build());
    relayer.start();

    relayer.dsl().transaction(tx -> relayer.store().enqueue(tx.dsl(), message("slow", "orders")));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> count("relayer.outbox.failed", "reason", "timeout") >= 1);
    slow.behaveNormally();
    await().atMost(Duration.ofSeconds(10)).until(() -> count("relayer.outbox.sent") == 1);

    // A retry may have started hanging before the transport recovered: one or more timeouts,
    // each a timed-out batch of the one row, each taking the send timeout.
    double timeouts = counter("relayer.outbox.failed", "transport", "slow", "reason", "timeout");
    Timer timedOut =
        registry.get("relayer.outbox.send").tags("transport", "slow", "outcome", "timeout").timer();
    assertThat(timedOut.count()).isEqualTo((long) timeouts);
    assertThat(timedOut.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(500 * timeouts);
    assertThat(count("relayer.outbox.failed", "reason", "transient")).isZero();
    // The row waited out a timed-out attempt and its backoff before it was sent.
    assertThat(
            registry.get("relayer.outbox.commit.to.send").timer().totalTime(TimeUnit.MILLISECONDS))
        .isGreaterThanOrEqualTo(500);
  }

  @Test
  void inboxDuplicatesAreCountedPerConsumerAndFirstRecordsAreNot() {
    Relayer relayer = fixture.track(Relayer.builder(fixture.pool).build());
    fixture.track(RelayerMetrics.builder(relayer, registry).build());
    UUID first = UUID.randomUUID();
    UUID second = UUID.randomUUID();

    assertThat(relayer.store().tryRecordInbox(fixture.dsl, "billing", first))
        .isEqualTo(InboxOutcome.FIRST);
    assertThat(relayer.store().tryRecordInbox(fixture.dsl, "billing", first))
        .isEqualTo(InboxOutcome.DUPLICATE);
    assertThat(relayer.store().tryRecordInbox(fixture.dsl, "billing", first))
        .isEqualTo(InboxOutcome.DUPLICATE);
    assertThat(relayer.store().tryRecordInbox(fixture.dsl, "shipping", first))
        .isEqualTo(InboxOutcome.FIRST);
    assertThat(relayer.store().tryRecordInbox(fixture.dsl, "shipping", second))
        .isEqualTo(InboxOutcome.FIRST);

    assertThat(counter("relayer.inbox.duplicates", "consumer", "billing")).isEqualTo(2);
    assertThat(
            Search.in(registry)
                .name("relayer.inbox.duplicates")
                .tag("consumer", "shipping")
                .counter())
        .isNull();
  }

  @Test
  void cleanupDeletionsAreCountedPerTable() {
    InMemoryTransport poison =
        InMemoryTransport.named("poison").rejectPermanently(m -> true, "no such queue");
    Relayer relayer =
        fixture.track(
            Relayer.builder(fixture.pool)
                .transport(poison)
                .dispatch(MetricsFixture.fastDispatch())
                .maintenance(
                    MetricsFixture.fastMaintenance()
                        .cleanupInterval(Duration.ofMillis(100))
                        .deadRetention(Retention.of(Duration.ofDays(7)))
                        .inboxRetention(Retention.of(Duration.ofDays(7)))
                        .build())
                .withoutLanes()
                .build());
    fixture.track(RelayerMetrics.builder(relayer, registry).build());
    // Three dead rows and two inbox records, all aged past their retention.
    relayer
        .dsl()
        .transaction(
            tx -> {
              for (int i = 0; i < 3; i++) {
                relayer.store().enqueue(tx.dsl(), message("poison", "orders"));
              }
            });
    relayer.start();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> count("relayer.outbox.dead", "reason", "rejected") == 3);
    relayer.store().tryRecordInbox(fixture.dsl, "billing", UUID.randomUUID());
    relayer.store().tryRecordInbox(fixture.dsl, "billing", UUID.randomUUID());
    fixture.dsl.execute("UPDATE relayer_outbox_dead SET failed_at = now() - interval '30 days'");
    fixture.dsl.execute("UPDATE relayer_inbox SET processed_at = now() - interval '30 days'");

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                count("relayer.cleanup.deleted", "table", "outbox_dead") == 3
                    && count("relayer.cleanup.deleted", "table", "inbox") == 2);

    assertThat(fixture.dsl.fetchCount(DSL.table(DSL.name("relayer_outbox_dead")))).isZero();
    assertThat(fixture.dsl.fetchCount(DSL.table(DSL.name("relayer_inbox")))).isZero();
    assertThat(timerCount("relayer.pass", "kind", "cleanup")).isPositive();
  }

  @Test
  void handOffsDroppedByAFullQueueAreCounted() {
    InMemoryTransport ok = InMemoryTransport.named("ok");
    Relayer relayer =
        fixture.track(
            Relayer.builder(fixture.pool)
                .transport(ok)
                .dispatch(dev.relayer.dispatch.DispatchOptions.builder().queueCapacity(2).build())
                .withoutMaintenance()
                .withoutLanes()
                .build());
    fixture.track(RelayerMetrics.builder(relayer, registry).build());

    // Not started: the hand-offs wait in a queue of two, and the third to fifth are dropped.
    relayer
        .dsl()
        .transaction(
            tx -> {
              for (int i = 0; i < 5; i++) {
                relayer.store().enqueue(tx.dsl(), message("ok", "orders"));
              }
            });

    assertThat(registry.get("relayer.outbox.handoffs.dropped").counter().count()).isEqualTo(3);
  }

  @Test
  void rowsOfTwoTransportsAndTwoDestinationsInterleavedAreEachCountedUnderTheirOwnTags() {
    InMemoryTransport red = InMemoryTransport.named("red");
    InMemoryTransport blue = InMemoryTransport.named("blue");
    Relayer relayer =
        fixture.track(
            Relayer.builder(fixture.pool)
                .transport(red)
                .transport(blue)
                .withoutMaintenance()
                .withoutLanes()
                .build());
    fixture.track(RelayerMetrics.builder(relayer, registry).destinationTag(d -> d, 10).build());
    relayer.start();
    List<String[]> routes =
        List.of(
            new String[] {"red", "orders"},
            new String[] {"blue", "orders"},
            new String[] {"red", "invoices"},
            new String[] {"blue", "invoices"});
    for (int round = 0; round < 3; round++) {
      // Each transaction interleaves the four routes; one route gets an extra row per round.
      List<dev.relayer.store.NewMessage> rows = new java.util.ArrayList<>();
      for (String[] route : routes) {
        rows.add(message(route[0], route[1]));
      }
      rows.add(message("blue", "invoices"));
      relayer.dsl().transaction(tx -> relayer.store().enqueue(tx.dsl(), rows));
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> red.deliveries().size() + blue.deliveries().size() == 15);

    await().atMost(Duration.ofSeconds(10)).until(() -> count("relayer.outbox.sent") == 15);
    assertThat(counter("relayer.outbox.sent", "transport", "red", "destination", "orders"))
        .isEqualTo(3);
    assertThat(counter("relayer.outbox.sent", "transport", "blue", "destination", "orders"))
        .isEqualTo(3);
    assertThat(counter("relayer.outbox.sent", "transport", "red", "destination", "invoices"))
        .isEqualTo(3);
    assertThat(counter("relayer.outbox.sent", "transport", "blue", "destination", "invoices"))
        .isEqualTo(6);
    assertThat(timerCount("relayer.outbox.commit.to.send", "transport", "blue")).isEqualTo(9);
    assertThat(timerCount("relayer.outbox.commit.to.send", "transport", "red")).isEqualTo(6);
  }

  @Test
  void closeRemovesTheMetersAndStopsCounting() {
    InMemoryTransport ok = InMemoryTransport.named("ok");
    Relayer relayer =
        fixture.track(
            Relayer.builder(fixture.pool)
                .transport(ok)
                .withoutMaintenance()
                .withoutLanes()
                .build());
    RelayerMetrics metrics = RelayerMetrics.builder(relayer, registry).build();
    relayer.start();
    relayer.dsl().transaction(tx -> relayer.store().enqueue(tx.dsl(), message("ok", "orders")));
    await().atMost(Duration.ofSeconds(10)).until(() -> count("relayer.outbox.sent") == 1);

    metrics.close();
    metrics.close();
    relayer.dsl().transaction(tx -> relayer.store().enqueue(tx.dsl(), message("ok", "orders")));
    await().atMost(Duration.ofSeconds(10)).until(() -> ok.deliveries().size() == 2);

    assertThat(registry.getMeters()).isEmpty();
  }

  private double count(String name, String... tags) {
    return Search.in(registry).name(name).tags(tags).counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  private double counter(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }

  private long timerCount(String name, String... tags) {
    List<Timer> timers = List.copyOf(Search.in(registry).name(name).tags(tags).timers());
    return timers.stream().mapToLong(Timer::count).sum();
  }
}
