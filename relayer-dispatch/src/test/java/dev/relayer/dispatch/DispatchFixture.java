package dev.relayer.dispatch;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.Lanes;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.transport.memory.InMemoryTransport;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** A fresh database with Relayer's tables, a pooled DSLContext and builders for the components. */
final class DispatchFixture implements AutoCloseable {

  final TestDatabase database;
  final HikariDataSource pool;
  final DSLContext dsl;
  final RelayerStore store;
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
