package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.dispatch.internal.Sweeper;
import dev.relayer.store.InboxOutcome;
import dev.relayer.store.NewMessage;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MaintenanceIT {

  DispatchFixture fx;
  InMemoryTransport memory;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture();
    memory = InMemoryTransport.named("memory");
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private RelayerDispatcher dispatcher() {
    return fx.track(
        RelayerDispatcher.builder(fx.store, fx.dsl)
            .transport(memory)
            .options(DispatchFixture.fastOptions().build())
            .build());
  }

  @Test
  void aRowWrittenWhileNoDispatcherRanIsDeliveredBySweeperAfterTheRecoveryDelay() {
    NewMessage message = message("orders");
    fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), message));
    RelayerDispatcher dispatcher = dispatcher();
    RelayerMaintenance maintenance =
        fx.track(
            RelayerMaintenance.create(
                dispatcher,
                DispatchFixture.fastMaintenance().recoveryDelay(Duration.ofHours(1)).build()));

    assertThat(maintenance.sweepOnce().claimed()).as("too young for the sweeper").isZero();
    RelayerMaintenance eager =
        fx.track(RelayerMaintenance.create(dispatcher, DispatchFixture.fastMaintenance().build()));
    maintenance.close();
    SweepResult pass = eager.sweepOnce();

    assertThat(pass.sent()).isEqualTo(1);
    assertThat(memory.deliveries()).hasSize(1);
    var sent = memory.deliveries().get(0).message();
    assertThat(sent.messageId()).isEqualTo(message.messageId());
    assertThat(sent.headers()).isEqualTo(message.headers());
    assertThat(sent.body()).isEqualTo(message.body());
    assertThat(fx.outboxCount()).isZero();
  }

  private void enqueueUnordered(int count) {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      messages.add(message("orders"));
    }
    fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), messages));
  }

  /** Maintenance sweeping pages of 10 rows, with an hour to wait after a pass that must wait. */
  private RelayerMaintenance pagesOfTenAnHourApart() {
    return fx.track(
        RelayerMaintenance.create(
            dispatcher(),
            DispatchFixture.fastMaintenance()
                .batchSize(10)
                .sweepInterval(Duration.ofHours(1))
                .build()));
  }

  @Test
  void aFullyDeliveredFullPassIsFollowedAtOnceByTheNext() {
    enqueueUnordered(35);
    RelayerMaintenance maintenance = pagesOfTenAnHourApart();

    maintenance.start();

    // Three full pages and a partial one, with no hour-long pause between them.
    await().atMost(Duration.ofSeconds(20)).until(() -> fx.outboxCount() == 0);
    assertThat(memory.deliveries()).hasSize(35);
  }

  @Test
  void aPassWithFailedSendsWaitsTheSweepIntervalEvenWhenItWasFull() throws Exception {
    enqueueUnordered(25);
    memory.failBatches(new IllegalStateException("broker unreachable"));
    RelayerMaintenance maintenance = pagesOfTenAnHourApart();

    maintenance.start();

    await().atMost(Duration.ofSeconds(20)).until(() -> memory.attempts().size() == 10);
    Thread.sleep(1_000);
    assertThat(memory.attempts()).as("no second pass before the interval").hasSize(10);
    assertThat(fx.outboxCount()).isEqualTo(25);
  }

  @Test
  void aSenderThatDiesAfterTheBrokerAcceptedReplaysTheSameMessageId() throws Exception {
    NewMessage message = message("orders");
    long id = fx.dsl.transactionResult(tx -> fx.store.enqueue(tx.dsl(), message));
    RelayerDispatcher dispatcher = dispatcher();
    // The "dead" sender: claimed and sent, but never completed (the process died before the
    // delete).
    var claim =
        fx.claimByIds(fx.dsl, new ClaimByIds(List.of(id), Instant.now(), Duration.ofSeconds(1)));
    SendResult accepted =
        memory
            .send(
                new TransportBatch(
                    "orders", List.of(toOutgoing(claim.messages().get(0))), Duration.ofSeconds(1)))
            .get(0);
    assertThat(accepted.isAccepted()).isTrue();

    RelayerMaintenance maintenance =
        fx.track(RelayerMaintenance.create(dispatcher, DispatchFixture.fastMaintenance().build()));
    await().atMost(Duration.ofSeconds(20)).until(() -> maintenance.sweepOnce().sent() == 1);

    assertThat(memory.deliveredIds()).containsExactly(message.messageId(), message.messageId());
    assertThat(fx.outboxCount()).isZero();
    // The consumer's inbox drops the replay.
    assertThat(fx.store.tryRecordInbox(fx.dsl, "billing", memory.deliveredIds().get(0)))
        .isEqualTo(InboxOutcome.FIRST);
    assertThat(fx.store.tryRecordInbox(fx.dsl, "billing", memory.deliveredIds().get(1)))
        .isEqualTo(InboxOutcome.DUPLICATE);
  }

  private static dev.relayer.api.spi.OutgoingMessage toOutgoing(
      dev.relayer.store.pass.ClaimedMessage m) {
    return new dev.relayer.api.spi.OutgoingMessage(
        m.messageId(), m.messageType(), m.headers(), m.body(), m.orderingKey(), m.tenantId());
  }

  @Test
  void aSweepPassThatFailsBeforeCommitRollsBackItsClaimsAndDeletes() {
    NewMessage message = message("orders");
    fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), message));
    AtomicBoolean killed = new AtomicBoolean();
    InMemoryTransportThatKillsThePass killer = new InMemoryTransportThatKillsThePass(fx, killed);
    RelayerDispatcher dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(killer.delegate())
                .options(DispatchFixture.fastOptions().build())
                .build());
    RelayerMaintenance maintenance =
        fx.track(RelayerMaintenance.create(dispatcher, DispatchFixture.fastMaintenance().build()));
    killed.set(false);
    try {
      maintenance.sweepOnce();
    } catch (RuntimeException expected) {
      // the pass's connection was terminated after the broker accepted
    }
    assertThat(killed).isTrue();
    assertThat(fx.outboxCount()).as("the delete was rolled back").isEqualTo(1);
    Integer attempts =
        fx.dsl.fetchValue(
            DSL.select(DSL.field(DSL.name("attempts"), Integer.class))
                .from(DSL.table(DSL.name("public", "relayer_outbox"))));
    assertThat(attempts).as("the claim was rolled back too").isZero();

    assertThat(maintenance.sweepOnce().sent()).isEqualTo(1);
    assertThat(killer.delegate().deliveredIds())
        .containsExactly(message.messageId(), message.messageId());
    assertThat(fx.outboxCount()).isZero();
  }

  @Test
  void onlyOneOfTwoInstancesSweepsAndTheOtherTakesOverWhenTheLeaderStopsOrVanishes()
      throws Exception {
    RelayerDispatcher dispatcher = dispatcher();
    MaintenanceOptions options =
        DispatchFixture.fastMaintenance().leaseDuration(Duration.ofSeconds(1)).build();
    RelayerMaintenance a = fx.track(RelayerMaintenance.create(dispatcher, options, "instance-a"));
    RelayerMaintenance b = fx.track(RelayerMaintenance.create(dispatcher, options, "instance-b"));

    assertThat(a.sweepOnce().leader()).isTrue();
    assertThat(b.sweepOnce().leader()).isFalse();
    assertThat(a.sweepOnce().leader()).isTrue();

    // Graceful stop releases the lease: the other takes over at once.
    a.close();
    assertThat(b.sweepOnce().leader()).isTrue();

    // Vanishing (no release, no renewal): the other takes over once the lease expires.
    RelayerMaintenance c = fx.track(RelayerMaintenance.create(dispatcher, options, "instance-c"));
    assertThat(c.sweepOnce().leader()).isFalse();
    await().atMost(Duration.ofSeconds(10)).until(() -> c.sweepOnce().leader());
    assertThat(HealthReads.of(fx.store).lease(fx.dsl, Sweeper.LEASE).orElseThrow().owner())
        .isEqualTo("instance-c");
  }

  @Test
  void twoRunningInstancesNeverSendARowTwice() throws Exception {
    List<UUID> written = new ArrayList<>();
    for (int t = 0; t < 30; t++) {
      List<NewMessage> batch = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        batch.add(message("two"));
      }
      batch.forEach(m -> written.add(m.messageId()));
      fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), batch));
    }
    RelayerDispatcher dispatcher = dispatcher();
    MaintenanceOptions options =
        DispatchFixture.fastMaintenance().batchSize(25).sweepInterval(Duration.ofMillis(1)).build();
    RelayerMaintenance a = fx.track(RelayerMaintenance.create(dispatcher, options, "instance-a"));
    RelayerMaintenance b = fx.track(RelayerMaintenance.create(dispatcher, options, "instance-b"));
    a.start();
    b.start();

    await().atMost(Duration.ofSeconds(60)).until(() -> fx.outboxCount() == 0);
    Map<UUID, Long> sends =
        memory.deliveredIds().stream()
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    assertThat(sends.keySet()).containsExactlyInAnyOrderElementsOf(written);
    assertThat(sends.values()).allMatch(count -> count == 1);
  }

  @Test
  void continuousNewTrafficDoesNotStarveAFailedRowOrANewlyDueScheduleBehindTheCursor()
      throws Exception {
    NewMessage poisonOnce = message("flaky");
    AtomicInteger flakyCalls = new AtomicInteger();
    memory.reject(
        m -> m.messageId().equals(poisonOnce.messageId()) && flakyCalls.incrementAndGet() == 1,
        "first try fails");
    fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), poisonOnce));
    NewMessage scheduled =
        NewMessage.builder()
            .transport("memory")
            .destination("scheduled")
            .messageType("Reminder")
            .body(new byte[] {1})
            .deliverAt(Instant.now().plusMillis(800))
            .build();
    fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), scheduled));
    RelayerDispatcher dispatcher = dispatcher();
    RelayerMaintenance maintenance =
        fx.track(
            RelayerMaintenance.create(
                dispatcher, DispatchFixture.fastMaintenance().batchSize(5).build()));

    Set<UUID> expected = ConcurrentHashMap.newKeySet();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!(memory.deliveredIds().contains(poisonOnce.messageId())
        && memory.deliveredIds().contains(scheduled.messageId()))) {
      assertThat(System.nanoTime())
          .as("failed row and schedule delivered under load")
          .isLessThan(deadline);
      List<NewMessage> burst = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        burst.add(message("traffic"));
      }
      burst.forEach(m -> expected.add(m.messageId()));
      fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), burst));
      maintenance.sweepOnce();
    }
    assertThat(flakyCalls.get()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void retentionDeletesOldDeadRowsAndInboxRecordsInBatchesAndKeepsEverythingElse() {
    DSLContext dsl = fx.dsl;
    var table = DSL.table(DSL.name("public", "relayer_outbox_dead"));
    var inbox = DSL.table(DSL.name("public", "relayer_inbox"));
    Instant old = Instant.now().minus(Duration.ofDays(40));
    // Five old dead rows, one recent; five old inbox records, one recent.
    for (int i = 0; i < 6; i++) {
      long id = fx.store.enqueue(dsl, message("dead"));
      var claim =
          fx.claimByIds(dsl, new ClaimByIds(List.of(id), Instant.now(), Duration.ofSeconds(5)));
      fx.bury(dsl, claim, "max-attempts", "e", i < 5 ? old : Instant.now());
      fx.store.tryRecordInbox(dsl, "c", UUID.randomUUID());
    }
    dsl.update(inbox)
        .set(
            DSL.field(DSL.name("processed_at"), java.time.OffsetDateTime.class),
            java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC).minusDays(40))
        .where(
            DSL.field(DSL.name("message_id"), UUID.class)
                .in(DSL.select(DSL.field(DSL.name("message_id"), UUID.class)).from(inbox).limit(5)))
        .execute();
    long pending = fx.store.enqueue(dsl, message("pending"));

    RelayerDispatcher dispatcher = dispatcher();
    RelayerMaintenance maintenance =
        fx.track(
            RelayerMaintenance.create(
                dispatcher, DispatchFixture.fastMaintenance().cleanupBatchSize(2).build()));
    var first = maintenance.cleanupOnce();
    assertThat(first.deadDeleted()).isEqualTo(5);
    assertThat(first.inboxDeleted()).isEqualTo(5);
    assertThat(first.drained()).isTrue();
    var last = maintenance.cleanupOnce();
    assertThat(last.deadDeleted()).isZero();
    assertThat(dsl.fetchCount(table)).isEqualTo(1);
    assertThat(dsl.fetchCount(inbox)).isEqualTo(1);
    assertThat(fx.outboxCount()).as("pending rows never expire").isEqualTo(1);
    assertThat(pending).isPositive();

    RelayerMaintenance keepForever =
        fx.track(
            RelayerMaintenance.create(
                dispatcher,
                DispatchFixture.fastMaintenance()
                    .deadRetention(Retention.infinite())
                    .inboxRetention(Retention.infinite())
                    .build()));
    dsl.update(table)
        .set(
            DSL.field(DSL.name("failed_at"), java.time.OffsetDateTime.class),
            java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC).minusYears(10))
        .execute();
    maintenance.close();
    var none = keepForever.cleanupOnce();
    assertThat(none.deadDeleted()).isZero();
    assertThat(none.inboxDeleted()).isZero();
    assertThat(dsl.fetchCount(table)).isEqualTo(1);
  }

  @Test
  void maintenanceAndApplicationWorkBothProgressOnASingleConnectionPool() throws Exception {
    HikariConfig config = new HikariConfig();
    config.setDataSource(fx.database.dataSource());
    config.setMaximumPoolSize(1);
    config.setConnectionTimeout(30_000);
    try (HikariDataSource single = new HikariDataSource(config)) {
      DSLContext one = DSL.using(single, SQLDialect.POSTGRES);
      RelayerDispatcher dispatcher =
          RelayerDispatcher.builder(fx.store, one)
              .transport(memory)
              .options(DispatchFixture.fastOptions().build())
              .build();
      RelayerMaintenance maintenance =
          RelayerMaintenance.create(
              dispatcher,
              DispatchFixture.fastMaintenance().sweepInterval(Duration.ofMillis(1)).build());
      try (dispatcher;
          maintenance) {
        dispatcher.start();
        maintenance.start();
        DSLContext app =
            DSL.using(one.configuration().deriveAppending(dispatcher.transactionListener()));
        for (int i = 0; i < 50; i++) {
          app.transaction(tx -> fx.store.enqueue(tx.dsl(), message("single")));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> memory.deliveries().size() >= 50);
      }
    }
    assertThat(fx.outboxCount()).isZero();
  }
}
