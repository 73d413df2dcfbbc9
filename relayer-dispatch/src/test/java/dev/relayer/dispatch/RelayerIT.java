package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.api.SchemaMismatchException;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.health.LeaseState;
import dev.relayer.testkit.ForwardingDataSource;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.testkit.transport.TcpProxy;
import dev.relayer.transport.memory.InMemoryTransport;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@link Relayer} on a real PostgreSQL with real threads: what it starts, in which order it stops,
 * what it closes, and that messages written through it are delivered.
 */
class RelayerIT {

  /** Tables with a prefix of their own, so that the threads of this class are told apart. */
  private static final SchemaOptions SCHEMA = SchemaOptions.of("public", "entry_");

  private static final String THREADS = "relayer-public.entry_-";

  TestDatabase db;
  HikariDataSource pool;
  DSLContext dsl;
  final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void setUp() {
    db = TestDatabase.create();
    HikariConfig config = new HikariConfig();
    config.setDataSource(db.dataSource());
    config.setMaximumPoolSize(10);
    pool = new HikariDataSource(config);
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable closeable : closeables) {
      closeable.close();
    }
    pool.close();
    db.close();
  }

  private void install() {
    RelayerSchemaInstaller.applyScript(db.dataSource(), SCHEMA);
  }

  /** Live threads of this class's store. */
  private static Set<String> relayerThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith(THREADS))
        .collect(Collectors.toSet());
  }

  /** The components of {@code threads}: {@code direct}, {@code maintenance}, {@code lane}, … */
  private static Set<String> components(Set<String> threads) {
    return threads.stream()
        .map(n -> n.substring(THREADS.length(), n.lastIndexOf('-')))
        .collect(Collectors.toSet());
  }

  /** Quick retries, short leases and a recovery delay no test outlives: the sweeper stays out. */
  private Relayer.Builder relayer(dev.relayer.api.spi.Transport... transports) {
    Relayer.Builder builder =
        Relayer.builder(pool)
            .prefix(SCHEMA.tablePrefix())
            .dispatch(DispatchFixture.fastOptions().build())
            .maintenance(
                DispatchFixture.fastMaintenance().recoveryDelay(Duration.ofHours(1)).build())
            .lanes(DispatchFixture.fastLanes().build());
    for (dev.relayer.api.spi.Transport transport : transports) {
      builder.transport(transport);
    }
    return builder;
  }

  private static NewMessage message(String destination) {
    return NewMessage.builder()
        .transport("memory")
        .destination(destination)
        .messageType("OrderPlaced")
        .body(destination.getBytes(java.nio.charset.StandardCharsets.UTF_8))
        .build();
  }

  /**
   * A Relayer of every part with the fast test options, sending through the shared {@code memory}.
   */
  private Relayer.Builder fast(InMemoryTransport memory) {
    return Relayer.builder(pool)
        .prefix(SCHEMA.tablePrefix())
        .sharedTransport(memory)
        .dispatch(DispatchFixture.fastOptions().build())
        .maintenance(DispatchFixture.fastMaintenance().build())
        .lanes(DispatchFixture.fastLanes().build());
  }

  /** The {@code i}-th ordered message of {@code key}. */
  private static NewMessage ordered(String key, int i) {
    return NewMessage.builder()
        .transport("memory")
        .destination("orders")
        .messageType("OrderChanged")
        .orderingKey(key)
        .body(new byte[] {(byte) i})
        .build();
  }

  private int outboxRows() {
    return dsl.fetchCount(DSL.table(DSL.name("public", "entry_outbox")));
  }

  private List<LeaseState> leasesOf(Relayer relayer) {
    return HealthReads.of(relayer.store()).leases(dsl).stream()
        .filter(l -> l.owner().equals(relayer.owner()))
        .toList();
  }

  @Test
  void messagesEnqueuedThroughTheStoreInAnAppTransactionAreDeliveredAfterCommit() {
    install();
    InMemoryTransport memory = InMemoryTransport.named("memory");
    try (Relayer relayer =
        Relayer.builder(dsl) // the application's context; relayer.dsl() derives from it
            .prefix(SCHEMA.tablePrefix())
            .sharedTransport(memory)
            .dispatch(DispatchFixture.fastOptions().build())
            .maintenance(
                DispatchFixture.fastMaintenance().recoveryDelay(Duration.ofHours(1)).build())
            .lanes(DispatchFixture.fastLanes().build())
            .build()) {
      relayer.start();

      // Through relayer.dsl(), and through the application's own context with the listener.
      relayer
          .dsl()
          .transaction(
              tx -> {
                relayer.store().enqueue(tx.dsl(), message("unordered"));
                relayer
                    .store()
                    .enqueue(
                        tx.dsl(),
                        NewMessage.builder()
                            .transport("memory")
                            .destination("orders")
                            .messageType("OrderChanged")
                            .orderingKey("customer-42")
                            .body(new byte[] {1})
                            .build());
              });
      DSLContext app =
          DSL.using(dsl.configuration().deriveAppending(relayer.transactionListener()));
      app.transaction(tx -> relayer.store().enqueue(tx.dsl(), message("from-the-app")));

      // recoveryDelay is an hour: only the hand-off at commit (and the lanes) can send these.
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(memory.deliveries())
                      .extracting(InMemoryTransport.Delivery::destination)
                      .containsExactlyInAnyOrder("unordered", "orders", "from-the-app"));
      await().atMost(Duration.ofSeconds(10)).until(() -> outboxRows() == 0);

      HealthReport health = relayer.health();
      assertThat(health.eligible()).isZero();
      assertThat(health.transports().get("memory").succeeded()).isPositive();
      assertThat(relayer.operator().parkedKeys()).isEmpty();
    }
  }

  @Test
  void afterCommitHandsOverIdsOfATransactionJooqDoesNotManage() throws Exception {
    install();
    InMemoryTransport memory = InMemoryTransport.named("memory");
    try (Relayer relayer = relayer(memory).build()) {
      relayer.start();
      long handedOver;
      long notHandedOver;
      try (Connection connection = pool.getConnection()) {
        connection.setAutoCommit(false);
        DSLContext tx = DSL.using(connection, SQLDialect.POSTGRES);
        handedOver = relayer.store().enqueue(tx, message("handed-over"));
        notHandedOver = relayer.store().enqueue(tx, message("left-to-the-sweeper"));
        connection.commit();
      }
      relayer.afterCommit(List.of(handedOver));

      await().atMost(Duration.ofSeconds(30)).until(() -> memory.deliveries().size() == 1);
      assertThat(memory.deliveries().get(0).destination()).isEqualTo("handed-over");
      await().atMost(Duration.ofSeconds(10)).until(() -> outboxRows() == 1);
      assertThat(
              dsl.fetchValue(
                  DSL.select(DSL.field(DSL.name("id"), Long.class))
                      .from(DSL.table(DSL.name("public", "entry_outbox")))))
          .as("the id never handed over waits for the sweeper's recoveryDelay")
          .isEqualTo(notHandedOver);
    }
  }

  @Test
  void idsHandedOverWithAfterCommitBeforeStartGoOutOnceStarted() {
    install();
    InMemoryTransport memory = InMemoryTransport.named("memory");
    try (Relayer relayer = relayer(memory).build()) {
      // Written without the listener: only afterCommit hands it over (the sweeper waits an hour).
      long id = dsl.transactionResult(tx -> relayer.store().enqueue(tx.dsl(), message("early")));
      relayer.afterCommit(List.of(id));
      assertThat(relayerThreads()).as("not started yet").isEmpty();

      relayer.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> memory.deliveries().size() == 1);
      assertThat(memory.deliveries().get(0).destination()).isEqualTo("early");
    }
  }

  @Test
  void closeWhileLanesAndMaintenanceRunStopsEveryThreadAndReleasesEveryLease() throws Exception {
    install();
    InMemoryTransport memory = InMemoryTransport.named("memory");
    Relayer relayer = relayer(memory).owner("closing-instance").build();
    relayer.start();

    // Traffic keeps coming, ordered and not, while the Relayer closes and after.
    AtomicBoolean producing = new AtomicBoolean(true);
    List<UUID> written = new CopyOnWriteArrayList<>();
    Thread producer =
        new Thread(
            () -> {
              for (int i = 0; producing.get(); i++) {
                NewMessage unordered = message("traffic-" + i);
                NewMessage ordered = ordered("customer-" + (i % 7), i);
                relayer
                    .dsl()
                    .transaction(
                        tx -> relayer.store().enqueue(tx.dsl(), List.of(unordered, ordered)));
                written.add(unordered.messageId());
                written.add(ordered.messageId());
              }
            },
            "test-producer");
    producer.start();

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(components(relayerThreads()))
                  .contains("direct", "maintenance", "lane", "lane-balance", "lane-listen");
              assertThat(leasesOf(relayer))
                  .extracting(LeaseState::name)
                  .contains("sweeper", "instance/closing-instance", "lane/0");
              assertThat(memory.deliveries()).hasSizeGreaterThan(20);
            });

    relayer.close();
    Set<String> afterClose = relayerThreads();
    assertThat(components(afterClose))
        .as("close waited for every pass and worker; only idle send threads may be winding down")
        .isSubsetOf(Set.of("send"));
    await().atMost(Duration.ofSeconds(5)).until(() -> relayerThreads().isEmpty());
    assertThat(leasesOf(relayer)).as("every lease and the heartbeat given up").isEmpty();
    relayer.afterCommit(List.of(1L)); // dropped, not an error: the sweeper takes such rows
    int deliveredAtClose = memory.deliveries().size();

    // The store still writes after close (twenty more transactions); nothing of this instance
    // sends them.
    int writtenAtClose = written.size();
    await().atMost(Duration.ofSeconds(30)).until(() -> written.size() >= writtenAtClose + 40);
    producing.set(false);
    producer.join();
    assertThat(memory.deliveries()).hasSize(deliveredAtClose);
    assertThat(relayerThreads()).isEmpty();

    // Another instance delivers what was left: nothing written was lost.
    try (Relayer next = fast(memory).build()) {
      next.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> outboxRows() == 0);
    }
    assertThat(memory.deliveredIds()).containsAll(written);
  }

  @Test
  void repeatedStartAndCloseUnderTrafficLeavesNoThreadNoLeaseAndLosesNothing() throws Exception {
    install();
    InMemoryTransport memory = InMemoryTransport.named("memory");
    List<UUID> written = new ArrayList<>();
    for (int round = 0; round < 12; round++) {
      Relayer relayer = fast(memory).owner("round-" + round).build();
      if (round % 4 == 0) {
        relayer.close(); // never started
        relayer.close();
        continue;
      }
      relayer.start();
      relayer.start();
      for (int i = 0; i < 10; i++) {
        NewMessage unordered = message("round-" + round);
        NewMessage ordered = ordered("customer-" + (i % 3), i);
        relayer
            .dsl()
            .transaction(tx -> relayer.store().enqueue(tx.dsl(), List.of(unordered, ordered)));
        written.add(unordered.messageId());
        written.add(ordered.messageId());
      }
      if (round % 4 == 1) {
        // Two threads close at once: one closes, the other returns once it is closed.
        Thread other = new Thread(relayer::close, "test-closer");
        other.start();
        relayer.close();
        other.join();
      } else {
        relayer.close();
      }
      // A pool's worker reports its pool terminated just before its own thread ends: allow it
      // that moment, nothing more.
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> Set.of("send").containsAll(components(relayerThreads())));
      assertThat(leasesOf(relayer)).isEmpty();
      assertThatThrownBy(relayer::start).isInstanceOf(IllegalStateException.class);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> relayerThreads().isEmpty());

    // What the closed rounds left in the outbox, a last instance delivers.
    try (Relayer last = fast(memory).build()) {
      last.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> outboxRows() == 0);
    }
    assertThat(memory.deliveredIds()).containsAll(written);
    await().atMost(Duration.ofSeconds(5)).until(() -> relayerThreads().isEmpty());
  }

  @Test
  void lanesListenOnTheDataSourceGivenForIt() {
    install();
    PGSimpleDataSource named = db.server().dataSource(db.name());
    named.setApplicationName("entry-listener");
    try (Relayer relayer =
        relayer(InMemoryTransport.named("memory")).listenConnections(named).build()) {
      relayer.start();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  dsl.fetchCount(
                          DSL.table(DSL.name("pg_catalog", "pg_stat_activity")),
                          DSL.field(DSL.name("application_name")).eq("entry-listener"),
                          DSL.field(DSL.name("datname")).eq(db.name()))
                      == 1);
    }
  }

  @Test
  void closeIsIdempotentBeforeAndAfterStart() {
    install();
    CloseCountingTransport neverStarted =
        new CloseCountingTransport(InMemoryTransport.named("memory"));
    Relayer unstarted = relayer(neverStarted).build();
    unstarted.close();
    unstarted.close();
    assertThat(neverStarted.closes()).isEqualTo(1);

    CloseCountingTransport started = new CloseCountingTransport(InMemoryTransport.named("memory"));
    Relayer relayer = relayer(started).build();
    relayer.start();
    relayer.start();
    relayer.close();
    relayer.close();
    assertThat(started.closes()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> relayerThreads().isEmpty());
    assertThat(leasesOf(relayer)).isEmpty();
  }

  @Test
  void closeClosesOwnedTransportsOnceNothingSendsAndNeverSharedOnes() throws Exception {
    install();
    CloseCountingTransport owned =
        new CloseCountingTransport(InMemoryTransport.named("memory"), RelayerIT::relayerThreads);
    InMemoryTransport sharedDelegate = InMemoryTransport.named("shared");
    CloseCountingTransport shared = new CloseCountingTransport(sharedDelegate);
    try (Relayer relayer = relayer(owned).sharedTransport(shared).build()) {
      relayer.start();
      relayer.dsl().transaction(tx -> relayer.store().enqueue(tx.dsl(), message("before-close")));
      await().atMost(Duration.ofSeconds(30)).until(() -> outboxRows() == 0);
    }
    assertThat(owned.closes()).isEqualTo(1);
    assertThat(components(owned.runningAtClose()))
        .as("lanes, maintenance and direct dispatch had stopped before the transport closed")
        .isSubsetOf(Set.of("send"));
    assertThat(shared.closes()).isZero();
  }

  @Test
  void startFailsOnAMissingSchemaStartsNothingAndWorksOnceTheTablesExist() {
    CloseCountingTransport owned = new CloseCountingTransport(InMemoryTransport.named("memory"));
    try (Relayer relayer = relayer(owned).build()) {
      assertThatThrownBy(relayer::start)
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("\"public\".\"entry_outbox\" does not exist");
      assertThat(relayerThreads()).as("nothing started").isEmpty();
      assertThat(owned.closes()).as("the Relayer is still whole").isZero();

      install();
      relayer.start();
      assertThat(components(relayerThreads())).contains("direct", "maintenance", "lane");
    }
    assertThat(owned.closes()).isEqualTo(1);
  }

  /** A TCP proxy in front of the test database, to cut the network to it. */
  private TcpProxy proxyToDatabase() {
    Matcher url = Pattern.compile("jdbc:postgresql://([^:/]+)(?::(\\d+))?/").matcher(db.jdbcUrl());
    assertThat(url.lookingAt()).as("jdbc url %s", db.jdbcUrl()).isTrue();
    return TcpProxy.start(
        url.group(1), url.group(2) == null ? 5432 : Integer.parseInt(url.group(2)));
  }

  /** Unpooled connections to the test database through {@code proxy}. */
  private PGSimpleDataSource through(TcpProxy proxy) {
    PGSimpleDataSource direct = new PGSimpleDataSource();
    direct.setUrl("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + db.name());
    direct.setConnectTimeout(2);
    direct.setUser(db.user());
    if (db.password() != null) {
      direct.setPassword(db.password());
    }
    return direct;
  }

  @Test
  void startWhileTheDatabaseIsUnreachableStartsNothingAndCanBeRetried() {
    install();
    try (TcpProxy proxy = proxyToDatabase()) {
      CloseCountingTransport owned = new CloseCountingTransport(InMemoryTransport.named("memory"));
      try (Relayer relayer =
          Relayer.builder(through(proxy))
              .prefix(SCHEMA.tablePrefix())
              .transport(owned)
              .dispatch(DispatchFixture.fastOptions().build())
              .maintenance(DispatchFixture.fastMaintenance().build())
              .lanes(DispatchFixture.fastLanes().build())
              .build()) {
        proxy.cut();
        assertThatThrownBy(relayer::start)
            .isInstanceOf(DataAccessException.class)
            .hasMessageContaining("Error getting connection");
        assertThat(relayerThreads()).as("nothing started").isEmpty();
        assertThat(owned.closes()).as("the Relayer is still whole").isZero();

        proxy.restore();
        relayer.start();
        assertThat(components(relayerThreads())).contains("direct", "maintenance", "lane");
      }
      assertThat(owned.closes()).isEqualTo(1);
    }
  }

  @Test
  void losingTheDatabaseAfterDispatchStartedFailsStartAndLeavesNothingRunning() throws Exception {
    install();
    try (TcpProxy proxy = proxyToDatabase()) {
      PGSimpleDataSource direct = through(proxy);
      // The network to the database goes down as soon as direct dispatch runs: maintenance's
      // start is the first to need a connection after that.
      AtomicBoolean cutWhileDispatchRan = new AtomicBoolean();
      DataSource cutOnceDispatchRuns =
          new ForwardingDataSource(direct) {
            @Override
            public Connection getConnection() throws SQLException {
              if (components(relayerThreads()).contains("direct")) {
                proxy.cut();
                cutWhileDispatchRan.set(true);
              }
              return super.getConnection();
            }
          };
      CloseCountingTransport owned = new CloseCountingTransport(InMemoryTransport.named("memory"));
      Relayer relayer =
          Relayer.builder(cutOnceDispatchRuns)
              .prefix(SCHEMA.tablePrefix())
              .transport(owned)
              .dispatch(DispatchFixture.fastOptions().build())
              .maintenance(DispatchFixture.fastMaintenance().build())
              .lanes(DispatchFixture.fastLanes().build())
              .build();

      assertThatThrownBy(relayer::start)
          .isInstanceOf(DataAccessException.class)
          .hasMessageContaining("Error getting connection");
      assertThat(cutWhileDispatchRan).as("the database was lost while dispatch ran").isTrue();
      assertThat(relayerThreads()).as("direct dispatch was stopped again").isEmpty();
      assertThat(owned.closes()).as("a failed start closes the owned transports").isEqualTo(1);
      assertThatThrownBy(relayer::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("is closed (its start failed:");
      relayer.close(); // safe after a failed start
      assertThat(owned.closes()).isEqualTo(1);
    }
  }

  @Test
  void aRelayerWithoutTransportsOnlyWritesAndAnotherInstanceDeliversItsRows() {
    install();
    try (Relayer writer =
        Relayer.builder(pool)
            .prefix(SCHEMA.tablePrefix())
            .externalTransports("memory") // delivered by the other instance
            .health(h -> h.eligibleThresholds(1, 2))
            .build()) {
      writer.start();
      assertThat(relayerThreads()).as("an instance that only writes runs no thread").isEmpty();
      writer.dsl().transaction(tx -> writer.store().enqueue(tx.dsl(), message("written")));
      assertThat(writer.health().eligible()).isEqualTo(1);
      assertThat(writer.health().status())
          .as("the builder's health thresholds apply")
          .isEqualTo(HealthStatus.DEGRADED);
      assertThat(outboxRows()).isEqualTo(1);

      InMemoryTransport memory = InMemoryTransport.named("memory");
      try (Relayer sender =
          Relayer.builder(pool)
              .prefix(SCHEMA.tablePrefix())
              .sharedTransport(memory)
              .dispatch(DispatchFixture.fastOptions().build())
              .maintenance(DispatchFixture.fastMaintenance().build())
              .withoutLanes()
              .build()) {
        sender.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> memory.deliveries().size() == 1);
        assertThat(components(relayerThreads())).doesNotContain("lane", "lane-balance");
      }
      assertThat(outboxRows()).isZero();
    }
  }
}
