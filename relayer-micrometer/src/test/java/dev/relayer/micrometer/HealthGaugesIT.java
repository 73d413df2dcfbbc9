package dev.relayer.micrometer;

import static dev.relayer.micrometer.MetricsFixture.message;
import static dev.relayer.micrometer.MetricsFixture.ordered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.Relayer;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Passes;
import dev.relayer.testkit.HeldSnapshot;
import dev.relayer.transport.memory.InMemoryTransport;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The gauges, refreshed from real health checks of a real outbox. */
class HealthGaugesIT {

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
  void gaugesReadNanUntilTheFirstRefresh() {
    Relayer writer =
        fixture.track(Relayer.builder(fixture.pool).externalTransports("memory").build());
    RelayerMetrics metrics = fixture.track(RelayerMetrics.builder(writer, registry).build());

    assertThat(gauge("relayer.outbox.eligible")).isNaN();
    assertThat(metrics.refresh()).isTrue();
    assertThat(gauge("relayer.outbox.eligible")).isZero();
    assertThat(gauge("relayer.outbox.oldest.age")).isZero();
  }

  @Test
  void gaugesFollowAGrowingThenDrainingBacklog() throws Exception {
    // A Relayer that only writes: its rows stay eligible until a delivering instance starts.
    Relayer writer =
        fixture.track(Relayer.builder(fixture.pool).externalTransports("memory").build());
    RelayerMetrics metrics = fixture.track(RelayerMetrics.builder(writer, registry).build());

    writer.dsl().transaction(tx -> enqueue(writer, tx.dsl(), 3));
    metrics.refresh();
    assertThat(gauge("relayer.outbox.eligible")).isEqualTo(3);
    double firstAge = gauge("relayer.outbox.oldest.eligible.age");
    assertThat(firstAge).isPositive();

    writer.dsl().transaction(tx -> enqueue(writer, tx.dsl(), 4));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> metrics.refresh() && gauge("relayer.outbox.oldest.age") > firstAge);
    assertThat(gauge("relayer.outbox.eligible")).isEqualTo(7);
    assertThat(gauge("relayer.outbox.oldest.eligible.age")).isGreaterThan(firstAge);
    assertThat(gauge("relayer.outbox.retrying")).isZero();
    assertThat(gauge("relayer.outbox.read.limited")).isZero();

    InMemoryTransport memory = InMemoryTransport.named("memory");
    Relayer deliverer = fixture.track(fixture.fastRelayer(memory).withoutLanes().build());
    deliverer.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> memory.deliveries().size() == 7);

    metrics.refresh();
    assertThat(gauge("relayer.outbox.eligible")).isZero();
    assertThat(gauge("relayer.outbox.oldest.age")).isZero();
    assertThat(gauge("relayer.outbox.oldest.eligible.age")).isZero();
  }

  @Test
  void aReadStoppedAtTheRowLimitShowsInItsGaugeAndTheCountsStopThere() {
    Relayer writer =
        fixture.track(
            Relayer.builder(fixture.pool)
                .externalTransports("memory")
                .health(h -> h.eligibleThresholds(1, 2).rowLimit(2))
                .build());
    RelayerMetrics metrics = fixture.track(RelayerMetrics.builder(writer, registry).build());

    writer.dsl().transaction(tx -> enqueue(writer, tx.dsl(), 1));
    metrics.refresh();
    assertThat(gauge("relayer.outbox.read.limited")).isZero();
    assertThat(gauge("relayer.outbox.eligible")).isEqualTo(1);

    writer.dsl().transaction(tx -> enqueue(writer, tx.dsl(), 2));
    metrics.refresh();
    assertThat(gauge("relayer.outbox.read.limited")).isEqualTo(1);
    assertThat(gauge("relayer.outbox.eligible")).isEqualTo(2);
    assertThat(gauge("relayer.outbox.oldest.eligible.age")).isPositive();
  }

  @Test
  void slowRefreshesAreSpacedSoThatReadingTakesAtMostATwentiethOfTheTime() throws Exception {
    // Enough rows, and a health row limit above them, that each refresh reads them all and takes
    // some milliseconds.
    Relayer writer =
        fixture.track(
            Relayer.builder(fixture.pool)
                .externalTransports("memory")
                .health(h -> h.rowLimit(100_000))
                .build());
    fixture.dsl.execute(
        "INSERT INTO relayer_outbox (message_id, transport, destination, message_type, body)"
            + " SELECT gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', '\\x00'"
            + " FROM generate_series(1, 20000)");
    // Asked to refresh every millisecond, far more often than a read takes.
    RelayerMetrics metrics =
        fixture.track(
            RelayerMetrics.builder(writer, registry).gaugeRefresh(Duration.ofMillis(1)).build());

    long started = System.nanoTime();
    metrics.start();
    Thread.sleep(3_000);
    Timer refreshes = registry.get("relayer.metrics.refresh").timer();
    long count = refreshes.count();
    double reading = refreshes.totalTime(TimeUnit.NANOSECONDS);
    double longest = refreshes.max(TimeUnit.NANOSECONDS);
    double elapsed = System.nanoTime() - started;

    assertThat(gauge("relayer.outbox.eligible")).isEqualTo(20000);
    assertThat(count).as("refreshes in 3 s").isGreaterThan(1);
    // Each finished refresh was followed by a pause of at least 20 times its duration, so the
    // refreshes' time is at most a twentieth of the time elapsed, and the last one's.
    assertThat(reading)
        .as("time spent in %d refreshes of %.0f ns elapsed", count, elapsed)
        .isLessThanOrEqualTo(elapsed / RelayerMetrics.REFRESH_PAUSE_FACTOR + longest);
  }

  @Test
  void retryingDeadAndParkedRowsShowInTheirGauges() {
    InMemoryTransport flaky = InMemoryTransport.named("flaky").reject(m -> true, "broker away");
    InMemoryTransport poison =
        InMemoryTransport.named("poison").rejectPermanently(m -> true, "no such queue");
    Relayer relayer =
        fixture.track(
            Relayer.builder(fixture.pool)
                .transport(flaky)
                .transport(poison)
                .dispatch(
                    dev.relayer.dispatch.DispatchOptions.builder()
                        .backoffInitial(Duration.ofMinutes(10))
                        .backoffMax(Duration.ofMinutes(10))
                        .build())
                .withoutMaintenance()
                .lanes(MetricsFixture.fastLanes())
                .build());
    RelayerMetrics metrics = fixture.track(RelayerMetrics.builder(relayer, registry).build());
    relayer.start();

    relayer
        .dsl()
        .transaction(
            tx -> {
              relayer.store().enqueue(tx.dsl(), message("flaky", "orders"));
              relayer.store().enqueue(tx.dsl(), message("poison", "orders"));
              relayer.store().enqueue(tx.dsl(), ordered("poison", "orders", "customer-1"));
              relayer.store().enqueue(tx.dsl(), ordered("poison", "orders", "customer-2"));
            });

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                metrics.refresh()
                    && gauge("relayer.outbox.retrying") == 1
                    && gauge("relayer.outbox.dead.rows") == 1
                    && gauge("relayer.outbox.parked.keys") == 2);
    // The retrying row waits out its backoff: pending and due, but not eligible.
    assertThat(gauge("relayer.outbox.eligible")).isZero();
    assertThat(gauge("relayer.outbox.oldest.age")).isPositive();
  }

  @Test
  void aLeaseHolderThatStopsRenewingDropsOutOfTheLeaseGaugesWhenItsLeaseExpires() {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    Relayer relayer =
        fixture.track(
            Relayer.builder(fixture.pool)
                .transport(memory)
                .owner("instance-a")
                .dispatch(MetricsFixture.fastDispatch())
                .maintenance(
                    MetricsFixture.fastMaintenance()
                        .cleanupInterval(Duration.ofMillis(200))
                        .build())
                .withoutLanes()
                .build());
    RelayerMetrics metrics = fixture.track(RelayerMetrics.builder(relayer, registry).build());
    // Another instance took the cleanup lease once and never renews it (it hung, or its process
    // was frozen): the lease row stays, under its name, until it expires.
    assertThat(
            Passes.of(relayer.store())
                .leases()
                .tryAcquire(
                    fixture.dsl, new LeaseRequest("cleanup", "instance-b", Duration.ofSeconds(2)))
                .acquired())
        .isTrue();
    relayer.start();

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> metrics.refresh() && lease("sweeper", "this") == 1);
    metrics.refresh();
    assertThat(lease("cleanup", "other")).isEqualTo(1);
    assertThat(lease("sweeper", "other")).isZero();

    // Once the stalled lease has expired, nobody else holds cleanup; this instance takes it over.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> metrics.refresh() && lease("cleanup", "other") == 0);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> metrics.refresh() && lease("cleanup", "this") == 1);
    assertThat(lease("sweeper", "this")).isEqualTo(1);
  }

  @Test
  void aSweeperLeaseHolderThatStopsRenewingLeavesNoSweeperHolder() {
    Relayer writer =
        fixture.track(Relayer.builder(fixture.pool).externalTransports("memory").build());
    RelayerMetrics metrics = fixture.track(RelayerMetrics.builder(writer, registry).build());
    Passes.of(writer.store())
        .leases()
        .tryAcquire(fixture.dsl, new LeaseRequest("sweeper", "instance-b", Duration.ofSeconds(1)));

    metrics.refresh();
    assertThat(lease("sweeper", "other")).isEqualTo(1);

    // Nobody renews it: once it expired, no instance holds the sweeper lease.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> metrics.refresh() && lease("sweeper", "other") == 0);
    assertThat(lease("sweeper", "this")).isZero();
  }

  @Test
  void aHeldSnapshotShowsInTheXminHorizonGauges() throws Exception {
    Relayer writer =
        fixture.track(Relayer.builder(fixture.pool).externalTransports("memory").build());
    RelayerMetrics metrics = fixture.track(RelayerMetrics.builder(writer, registry).build());
    writer.dsl().transaction(tx -> enqueue(writer, tx.dsl(), 1));

    try (HeldSnapshot pin =
        HeldSnapshot.take(fixture.database.connect(), "nightly-report", "public.relayer_outbox")) {
      // Writes after the snapshot age it, and the time it stays open shows as its age.
      for (int i = 0; i < 3; i++) {
        writer.dsl().transaction(tx -> enqueue(writer, tx.dsl(), 1));
      }
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> metrics.refresh() && gauge("relayer.xmin.horizon.transaction.age") > 0.5);
      assertThat(gauge("relayer.xmin.horizon.age")).isGreaterThanOrEqualTo(3);
    }
    metrics.refresh();
    assertThat(gauge("relayer.xmin.horizon.transaction.age")).isLessThan(0.5);
    assertThat(gauge("relayer.table.dead.tuples", "table", "outbox")).isNotNaN();
  }

  @Test
  void aFailedRefreshIsCountedAndTheGaugesReadNan() {
    Relayer writer =
        fixture.track(Relayer.builder(fixture.pool).externalTransports("memory").build());
    RelayerMetrics metrics = fixture.track(RelayerMetrics.builder(writer, registry).build());
    assertThat(metrics.refresh()).isTrue();
    assertThat(gauge("relayer.outbox.dead.rows")).isZero();

    fixture.dsl.execute("ALTER TABLE relayer_outbox_dead RENAME TO relayer_outbox_dead_moved");
    try {
      assertThat(metrics.refresh()).isFalse();
      assertThat(gauge("relayer.outbox.dead.rows")).isNaN();
      assertThat(registry.get("relayer.metrics.refresh.failures").counter().count()).isEqualTo(1);
    } finally {
      fixture.dsl.execute("ALTER TABLE relayer_outbox_dead_moved RENAME TO relayer_outbox_dead");
    }
    assertThat(metrics.refresh()).isTrue();
    assertThat(gauge("relayer.outbox.dead.rows")).isZero();
  }

  @Test
  void startRefreshesOnItsOwnThreadUntilClosed() {
    Relayer writer =
        fixture.track(Relayer.builder(fixture.pool).externalTransports("memory").build());
    RelayerMetrics metrics =
        fixture.track(
            RelayerMetrics.builder(writer, registry).gaugeRefresh(Duration.ofMillis(100)).build());
    metrics.start();
    metrics.start();
    await().atMost(Duration.ofSeconds(5)).until(() -> gauge("relayer.outbox.eligible") == 0);

    writer.dsl().transaction(tx -> enqueue(writer, tx.dsl(), 2));
    await().atMost(Duration.ofSeconds(5)).until(() -> gauge("relayer.outbox.eligible") == 2);
    metrics.close();
    assertThat(registry.find("relayer.outbox.eligible").gauge()).isNull();
  }

  private static void enqueue(Relayer relayer, org.jooq.DSLContext tx, int count) {
    for (int i = 0; i < count; i++) {
      relayer.store().enqueue(tx, message("memory", "orders"));
    }
  }

  private double gauge(String name, String... tags) {
    return registry.get(name).tags(tags).gauge().value();
  }

  private double lease(String kind, String holder) {
    return gauge("relayer.lease.holders", "kind", kind, "holder", holder);
  }
}
