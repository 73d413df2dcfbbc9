package dev.relayer.micrometer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.api.spi.Transport;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.LaneOptions;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.Relayer;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** A fresh database with Relayer's tables, a pool over it, and what the tests build on it. */
final class MetricsFixture implements AutoCloseable {

  final TestDatabase database;
  final HikariDataSource pool;
  final DSLContext dsl;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  MetricsFixture() {
    database = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(database.dataSource(), SchemaOptions.defaults());
    HikariConfig config = new HikariConfig();
    config.setDataSource(database.dataSource());
    config.setMaximumPoolSize(10);
    pool = new HikariDataSource(config);
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
  }

  <T extends AutoCloseable> T track(T closeable) {
    closeables.add(0, closeable);
    return closeable;
  }

  /**
   * A Relayer on this fixture's pool over {@code transports}, with the fast dispatch and
   * maintenance options below; a test adds lanes ({@link #fastLanes()}) or leaves them out, and
   * changes what else it needs, before {@code build()}.
   */
  Relayer.Builder fastRelayer(Transport... transports) {
    Relayer.Builder builder = Relayer.builder(pool);
    for (Transport transport : transports) {
      builder.transport(transport);
    }
    return builder.dispatch(fastDispatch()).maintenance(fastMaintenance().build());
  }

  /** Quick retries, a short send timeout and three attempts. */
  static DispatchOptions fastDispatch() {
    return DispatchOptions.builder()
        .claimDuration(Duration.ofSeconds(5))
        .sendTimeout(Duration.ofMillis(500))
        .maxAttempts(3)
        .backoffInitial(Duration.ofMillis(20))
        .backoffMax(Duration.ofMillis(50))
        .shutdownTimeout(Duration.ofSeconds(5))
        .build();
  }

  /** A sweeper that takes every row at once and runs every 50 ms. */
  static MaintenanceOptions.Builder fastMaintenance() {
    return MaintenanceOptions.builder()
        .recoveryDelay(Duration.ZERO)
        .sweepInterval(Duration.ofMillis(50))
        .leaseDuration(Duration.ofSeconds(2))
        .claimDuration(Duration.ofSeconds(5))
        .shutdownTimeout(Duration.ofSeconds(5));
  }

  static LaneOptions fastLanes() {
    return LaneOptions.builder()
        .pollInterval(Duration.ofMillis(100))
        .leaseDuration(Duration.ofSeconds(2))
        .reconnectDelay(Duration.ofMillis(100))
        .shutdownTimeout(Duration.ofSeconds(5))
        .build();
  }

  static NewMessage message(String transport, String destination) {
    return NewMessage.builder()
        .transport(transport)
        .destination(destination)
        .messageType("OrderPlaced")
        .body(destination.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  static NewMessage ordered(String transport, String destination, String key) {
    return NewMessage.builder()
        .transport(transport)
        .destination(destination)
        .messageType("OrderChanged")
        .orderingKey(key)
        .body(key.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    pool.close();
    database.close();
  }
}
