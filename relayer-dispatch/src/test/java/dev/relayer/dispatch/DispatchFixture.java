package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.Lanes;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.store.pass.Completion;
import dev.relayer.store.pass.FailedSend;
import dev.relayer.store.pass.LaneClaim;
import dev.relayer.store.pass.LanePass;
import dev.relayer.store.pass.LeaseOutcome;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Passes;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.transport.memory.InMemoryTransport;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** A fresh database with Relayer's tables, a pooled DSLContext and builders for the components. */
final class DispatchFixture implements AutoCloseable {

  final TestDatabase database;
  final HikariDataSource pool;
  final DSLContext dsl;
  final RelayerStore store;
  final Passes passes;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  DispatchFixture() {
    this(8);
  }

  DispatchFixture(int poolSize) {
    database = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(database.dataSource(), SchemaOptions.defaults());
    HikariConfig config = new HikariConfig();
    config.setDataSource(database.dataSource());
    config.setMaximumPoolSize(poolSize);
    config.setConnectionTimeout(30_000);
    pool = new HikariDataSource(config);
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
    store = RelayerStore.create(StoreOptions.defaults());
    passes = Passes.of(store);
  }

  /** The database's {@code created_at} of outbox row {@code id}. */
  Instant createdAt(long id) {
    return dsl.select(DSL.field(DSL.name("created_at"), OffsetDateTime.class))
        .from(DSL.table(DSL.name("public", "relayer_outbox")))
        .where(DSL.field(DSL.name("id"), Long.class).eq(id))
        .fetchOne()
        .value1()
        .toInstant();
  }

  /** Fast retries so that tests see several attempts quickly. */
  static DispatchOptions.Builder fastOptions() {
    return DispatchOptions.builder()
        .claimDuration(Duration.ofSeconds(5))
        .sendTimeout(Duration.ofSeconds(2))
        .backoffInitial(Duration.ofMillis(20))
        .backoffMax(Duration.ofMillis(100))
        .shutdownTimeout(Duration.ofSeconds(5));
  }

  static MaintenanceOptions.Builder fastMaintenance() {
    return MaintenanceOptions.builder()
        .recoveryDelay(Duration.ZERO)
        .sweepInterval(Duration.ofMillis(50))
        .leaseDuration(Duration.ofSeconds(2))
        .claimDuration(Duration.ofSeconds(5))
        .shutdownTimeout(Duration.ofSeconds(5));
  }

  /**
   * A dispatcher with the memory transport and {@link #fastOptions()} on a pool of its own of
   * {@code size} connections to this database, auto-committing or not; both closed with this
   * fixture.
   */
  RelayerDispatcher dispatcherOnOwnPool(int size, boolean autoCommit) {
    HikariConfig config = new HikariConfig();
    config.setDataSource(database.dataSource());
    config.setMaximumPoolSize(size);
    config.setAutoCommit(autoCommit);
    HikariDataSource own = track(new HikariDataSource(config));
    return track(
        RelayerDispatcher.builder(store, DSL.using(own, SQLDialect.POSTGRES))
            .transport(InMemoryTransport.named("memory"))
            .options(fastOptions().build())
            .build());
  }

  /**
   * A dispatcher over this fixture's store and pool with {@code transport}, {@code clock} and
   * {@link #fastOptions()}, closed with this fixture.
   */
  RelayerDispatcher dispatcher(InMemoryTransport transport, Clock clock) {
    return track(
        RelayerDispatcher.builder(store, dsl)
            .transport(transport)
            .clock(clock)
            .options(fastOptions().build())
            .build());
  }

  <T extends AutoCloseable> T track(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  /** An application context whose jOOQ transactions hand their rows to {@code dispatcher}. */
  DSLContext app(RelayerDispatcher dispatcher) {
    return DSL.using(dsl.configuration().deriveAppending(dispatcher.transactionListener()));
  }

  static NewMessage message(String destination) {
    return NewMessage.builder()
        .transport("memory")
        .destination(destination)
        .messageType("OrderPlaced")
        .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .body(("{\"order\":\"" + destination + "\"}").getBytes(StandardCharsets.UTF_8))
        .build();
  }

  static NewMessage ordered(String key) {
    return NewMessage.builder()
        .transport("memory")
        .destination("orders")
        .messageType("OrderChanged")
        .orderingKey(key)
        .body(key.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  /** {@code count} distinct keys that map to {@code lane} among {@code laneCount} lanes. */
  static List<String> keysInLane(int lane, int count, int laneCount) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < count; i++) {
      String key = "customer-" + i;
      if (Lanes.laneOf(key, laneCount) == lane) {
        keys.add(key);
      }
    }
    return keys;
  }

  /** Lane options for tests: short leases, quick reconnects. */
  static LaneOptions.Builder fastLanes() {
    return LaneOptions.builder()
        .pollInterval(Duration.ofMillis(200))
        .leaseDuration(Duration.ofSeconds(1))
        .reconnectDelay(Duration.ofMillis(100))
        .shutdownTimeout(Duration.ofSeconds(5));
  }

  /** A pooled connection that LISTENs on the store's lane channel, for the caller to close. */
  Connection listening() throws SQLException {
    Connection listener = pool.getConnection();
    listener.setAutoCommit(true);
    try (var statement = listener.createStatement()) {
      statement.execute("LISTEN " + store.laneChannel());
    }
    return listener;
  }

  /**
   * Claims rows by id as direct dispatch does (a claim that commits before its send), on {@code
   * dsl}: to leave rows under a claim, or to write an outcome for them with {@link #bury} or {@link
   * #retryLater}.
   */
  Claim.Stamped claimByIds(DSLContext dsl, ClaimByIds request) {
    return passes.direct(dsl).claimByIds(request);
  }

  /**
   * Claims one row alone, as the sweeper does for a suspect row, in a sweep pass of its own under a
   * sweeper lease it then gives up again; commits.
   */
  Claim.Stamped claimAlone(ClaimByIds request) {
    LeaseRequest lease = new LeaseRequest("sweeper", "claims-alone", Duration.ofMinutes(1));
    Claim.Stamped claim =
        dsl.transactionResult(
            tx -> {
              var pass = passes.sweep(tx.dsl(), lease);
              Claim.Stamped alone = pass.claimAlone(request);
              pass.end();
              return alone;
            });
    dsl.transaction(tx -> passes.leases().release(tx.dsl(), lease.name(), lease.owner()));
    return claim;
  }

  /**
   * Writes, as a completion does, that the claim's rows are not to be retried: an unordered row
   * moves to the dead table, an ordered one is parked. Returns what was written.
   */
  Completion.Written bury(DSLContext dsl, Claim claim, String reason, String error, Instant at) {
    List<Completion.Burial> burials =
        claim.messages().stream().map(m -> new Completion.Burial(m, reason, error)).toList();
    return passes.direct(dsl).complete(claim, new Completion(List.of(), List.of(), burials, at));
  }

  /** Writes, as a completion does, that the claim's rows failed and wait until {@code retryAt}. */
  void retryLater(DSLContext dsl, Claim claim, String error, Instant retryAt) {
    List<FailedSend> failures =
        claim.messages().stream().map(m -> new FailedSend(m.id(), error, retryAt)).toList();
    passes.direct(dsl).complete(claim, new Completion(List.of(), failures, List.of(), retryAt));
  }

  /**
   * Parks the head of {@code key} as a lane pass does when the head runs out of attempts: in one
   * transaction under the lane's lease, taken by an owner of its own and given up afterwards.
   */
  void parkHead(String key, String error, Instant at) {
    int lane = Lanes.laneOf(key, store.options().laneCount());
    LeaseRequest lease = new LeaseRequest("lane/" + lane, "fixture", Duration.ofMinutes(1));
    dsl.transaction(
        tx -> {
          LanePass pass = passes.lanes(tx.dsl(), List.of(lane), l -> lease);
          Claim.Stamped heads =
              pass.claim(
                  new LaneClaim(
                      Set.of(lane), 1, 0, Set.of(), Instant.now(), Duration.ofMinutes(1)));
          List<Completion.Burial> burials =
              heads.messages().stream()
                  .map(m -> new Completion.Burial(m, "max-attempts", error))
                  .toList();
          assertThat(
                  pass.complete(heads, new Completion(List.of(), List.of(), burials, at)).parked())
              .as("the head of %s parked", key)
              .hasSize(1);
          pass.end();
        });
    dsl.transaction(tx -> passes.leases().release(tx.dsl(), lease.name(), lease.owner()));
  }

  /** Takes {@code lease} in a transaction of its own, as another instance would. */
  LeaseOutcome holdLease(LeaseRequest lease) {
    return dsl.transactionResult(tx -> passes.leases().tryAcquire(tx.dsl(), lease));
  }

  int outboxCount() {
    return dsl.fetchCount(DSL.table(DSL.name("public", "relayer_outbox")));
  }

  @Override
  public void close() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    pool.close();
    database.close();
  }
}
