package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Passes;
import dev.relayer.testkit.PrivatePostgres;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.transport.memory.InMemoryTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a send relies on outlives a server crash during that send. On a PostgreSQL of the test's own
 * whose WAL writer flushes only every 10 s, the transport crashes the server ({@code pg_ctl stop -m
 * immediate}) from inside the send, once. After the restart, a claim that committed before its send
 * still carries its attempts and the in-flight mark, and a lease taken just before the send still
 * names the owner that sent: had those commits not waited for their WAL flush, the crash would have
 * taken them, and a message that kills its sender could have been sent once with no attempt counted
 * and no owner to charge (more than {@code maxAttempts} sends in all).
 */
class ServerCrashDuringSendIT {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private PrivatePostgres postgres;
  private HikariDataSource pool;
  private DSLContext dsl;
  private final RelayerStore store = RelayerStore.create(StoreOptions.defaults());
  private final AtomicBoolean crashed = new AtomicBoolean();

  /** Accepts every message; the first send crashes the server before accepting. */
  private InMemoryTransport transport;

  @BeforeEach
  void setUp() throws Exception {
    postgres =
        PrivatePostgres.start(
            new PrivatePostgres.Config(
                "crashsend",
                "relayer",
                Map.of("wal_writer_delay", "10000ms", "wal_writer_flush_after", "0"),
                Optional.empty()));
    RelayerSchemaInstaller.applyScript(postgres.dataSource(), SchemaOptions.defaults());
    HikariConfig config = new HikariConfig();
    config.setDataSource(postgres.dataSource());
    config.setMaximumPoolSize(6);
    config.setConnectionTimeout(500);
    config.setInitializationFailTimeout(-1);
    pool = new HikariDataSource(config);
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
    transport =
        InMemoryTransport.named("memory")
            .reject(
                message -> {
                  if (crashed.compareAndSet(false, true)) {
                    crashServer();
                  }
                  return false;
                },
                "never");
  }

  @AfterEach
  void tearDown() {
    if (pool != null) {
      pool.close();
    }
    if (postgres != null) {
      postgres.close();
    }
  }

  @Test
  void directDispatchClaimOutlivesAServerCrashDuringItsSend() throws Exception {
    RelayerDispatcher dispatcher = dispatcher();
    dispatcher.start();
    NewMessage message = DispatchFixture.message("orders");
    DSLContext app =
        DSL.using(dsl.configuration().deriveAppending(dispatcher.transactionListener()));

    app.transaction(tx -> store.enqueue(tx.dsl(), message));
    await().atMost(WAIT).untilTrue(crashed);
    dispatcher.close();
    postgres.startServer();

    assertThat(attemptsAndError(message.messageId()))
        .as("the claim's attempt and in-flight mark after the restart")
        .isEqualTo(List.of(1, ClaimedMessage.IN_FLIGHT));
  }

  @Test
  void takenOverLaneClaimOutlivesAServerCrashDuringItsSend() throws Exception {
    NewMessage message = orderedInLane3();
    leaseOfADeadOwner("lane/3");

    runLanesUntilTheCrashThenRestart();

    assertThat(attemptsAndError(message.messageId()))
        .as("the careful claim's attempt and the mark")
        .isEqualTo(List.of(1, ClaimedMessage.IN_FLIGHT));
  }

  @Test
  void takenOverSweeperClaimOutlivesAServerCrashDuringItsSend() throws Exception {
    NewMessage message = unordered();
    leaseOfADeadOwner("sweeper");

    runMaintenanceUntilTheCrashThenRestart();

    assertThat(attemptsAndError(message.messageId()))
        .as("the careful page's attempt and the mark")
        .isEqualTo(List.of(1, ClaimedMessage.IN_FLIGHT));
  }

  @Test
  void laneLeaseTakenJustBeforeAServerCrashStillNamesItsOwnerAfterTheRestart() throws Exception {
    orderedInLane3();

    runLanesUntilTheCrashThenRestart();

    // The lease names the owner that sent: the next owner takes it over from an expired lease and
    // claims carefully, instead of creating the lease anew and sending the rows with others.
    assertThat(leaseOwner("lane/3"))
        .as("the owner of lane/3 after the restart")
        .isEqualTo("survivor");
  }

  @Test
  void sweeperLeaseTakenJustBeforeAServerCrashStillNamesItsOwnerAfterTheRestart() throws Exception {
    unordered();

    runMaintenanceUntilTheCrashThenRestart();

    assertThat(leaseOwner("sweeper"))
        .as("the sweeper's owner after the restart")
        .isEqualTo("survivor");
  }

  /** An ordered message in lane 3, committed (and so flushed) before anything runs. */
  private NewMessage orderedInLane3() {
    String key = DispatchFixture.keysInLane(3, 1, StoreOptions.DEFAULT_LANES).get(0);
    NewMessage message = DispatchFixture.ordered(key);
    dsl.transaction(tx -> store.enqueue(tx.dsl(), message));
    return message;
  }

  /** An unordered message, committed without a hand-off: only the sweeper sends it. */
  private NewMessage unordered() {
    NewMessage message = DispatchFixture.message("orders");
    dsl.transaction(tx -> store.enqueue(tx.dsl(), message));
    return message;
  }

  /** The lease {@code name}, taken by an owner that then died: it has lapsed when this returns. */
  private void leaseOfADeadOwner(String name) throws InterruptedException {
    LeaseRequest lease = new LeaseRequest(name, "dead-owner", Duration.ofSeconds(1));
    assertThat(
            dsl.transactionResult(tx -> Passes.of(store).leases().tryAcquire(tx.dsl(), lease))
                .acquired())
        .isTrue();
    Thread.sleep(1200);
  }

  /** Runs lanes owned by {@code survivor} until the send crashes the server; then restarts it. */
  private void runLanesUntilTheCrashThenRestart() throws Exception {
    runUntilTheCrashThenRestart(
        dispatcher -> {
          RelayerLanes lanes =
              RelayerLanes.builder(dispatcher)
                  .owner("survivor")
                  .options(DispatchFixture.fastLanes().listen(false).build())
                  .build();
          lanes.start();
          return lanes;
        });
  }

  /** Runs maintenance owned by {@code survivor} until the send crashes the server; restarts it. */
  private void runMaintenanceUntilTheCrashThenRestart() throws Exception {
    runUntilTheCrashThenRestart(
        dispatcher -> {
          RelayerMaintenance maintenance =
              RelayerMaintenance.create(
                  dispatcher, DispatchFixture.fastMaintenance().build(), "survivor");
          maintenance.start();
          return maintenance;
        });
  }

  /**
   * Starts a dispatcher and, on it, the component {@code started} starts; waits until the send
   * crashed the server, closes both (the server down) and restarts the server.
   */
  private void runUntilTheCrashThenRestart(Function<RelayerDispatcher, AutoCloseable> started)
      throws Exception {
    RelayerDispatcher dispatcher = dispatcher();
    dispatcher.start();
    AutoCloseable component = started.apply(dispatcher);
    await().atMost(WAIT).untilTrue(crashed);
    component.close();
    dispatcher.close();
    postgres.startServer();
  }

  private RelayerDispatcher dispatcher() {
    return RelayerDispatcher.builder(store, dsl)
        .transport(transport)
        .options(DispatchFixture.fastOptions().build())
        .build();
  }

  private void crashServer() {
    try {
      postgres.crash();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The owner the lease row {@code name} names, read on a new connection; null without a row. */
  private String leaseOwner(String name) throws Exception {
    try (var connection = postgres.dataSource().getConnection()) {
      return DSL.using(connection, SQLDialect.POSTGRES)
          .select(DSL.field(DSL.name("owner"), String.class))
          .from(DSL.table(DSL.name("public", "relayer_leases")))
          .where(DSL.field(DSL.name("name"), String.class).eq(name))
          .fetchOne(0, String.class);
    }
  }

  /** The row's attempts and last error, read on a new connection. */
  private List<Object> attemptsAndError(UUID messageId) throws Exception {
    try (var connection = postgres.dataSource().getConnection()) {
      Record2<Integer, String> row =
          DSL.using(connection, SQLDialect.POSTGRES)
              .select(
                  DSL.field(DSL.name("attempts"), Integer.class),
                  DSL.field(DSL.name("last_error"), String.class))
              .from(DSL.table(DSL.name("public", "relayer_outbox")))
              .where(DSL.field(DSL.name("message_id"), UUID.class).eq(messageId))
              .fetchOne();
      assertThat(row).as("the outbox row of %s", messageId).isNotNull();
      return Arrays.asList(row.value1(), row.value2());
    }
  }
}
