package dev.relayer.it.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.LaneOptions;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.RelayerDispatcher;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * What every child JVM of the chaos run shares: its arguments ({@code key=value}), a connection
 * pool that outlives PostgreSQL restarts, the store, the RabbitMQ transport (through the test's
 * proxy) wrapped in {@link PoisonTransport}, and a dispatcher with the run's short timings.
 *
 * <p>The timings are short so that the run converges within seconds of the last fault; every
 * process uses the same values, as instances sharing tables must.
 */
final class ChaosNode implements AutoCloseable {

  /** Claims a row may use before it goes dead (an ordered head: parked). */
  static final int MAX_ATTEMPTS = 8;

  static final Duration SEND_TIMEOUT = Duration.ofSeconds(2);
  static final Duration CLAIM_DURATION = Duration.ofSeconds(5);

  final Map<String, String> args;
  final HikariDataSource pool;
  final DSLContext dsl;
  final RelayerStore store;
  final RelayerDispatcher dispatcher;

  private ChaosNode(Map<String, String> args, int poolSize) {
    this.args = args;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args.get("jdbcUrl"));
    config.setMaximumPoolSize(poolSize);
    config.setConnectionTimeout(3_000);
    config.setValidationTimeout(1_000);
    // Start even while PostgreSQL is down (a restart fault); connections come when it is back.
    config.setInitializationFailTimeout(-1);
    config.setPoolName("chaos-" + args.get("name"));
    this.pool = new HikariDataSource(config);
    this.dsl = DSL.using(pool, SQLDialect.POSTGRES);
    this.store = RelayerStore.create(StoreOptions.defaults());
    RabbitMqTransport rabbit =
        RabbitMqTransport.builder()
            .uri(args.get("amqpUri"))
            .connectTimeout(SEND_TIMEOUT)
            .recoveryInterval(Duration.ofMillis(500))
            .build();
    this.dispatcher =
        RelayerDispatcher.builder(store, dsl)
            .transport(new PoisonTransport(rabbit, java.nio.file.Path.of(args.get("haltLog"))))
            .options(dispatchOptions())
            .build();
  }

  /** Parses {@code key=value} arguments and builds the node. */
  static ChaosNode fromArgs(String[] argv, int poolSize) {
    Map<String, String> args = new HashMap<>();
    for (String arg : argv) {
      int eq = arg.indexOf('=');
      args.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    watchParent(Long.parseLong(args.get("parentPid")));
    return new ChaosNode(args, poolSize);
  }

  /** Halts this JVM once the test JVM is gone (killed itself), so no child outlives its run. */
  private static void watchParent(long parentPid) {
    Thread watchdog =
        new Thread(
            () -> {
              while (ProcessHandle.of(parentPid).map(ProcessHandle::isAlive).orElse(false)) {
                try {
                  Thread.sleep(1_000);
                } catch (InterruptedException e) {
                  return;
                }
              }
              Runtime.getRuntime().halt(1);
            },
            "chaos-parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }

  static DispatchOptions dispatchOptions() {
    return DispatchOptions.builder()
        .claimDuration(CLAIM_DURATION)
        .sendTimeout(SEND_TIMEOUT)
        .maxAttempts(MAX_ATTEMPTS)
        // An outage of a few seconds must not use up a message's attempts: 1 s, 2 s, 4 s, 4 s...
        .backoffInitial(Duration.ofSeconds(1))
        .backoffMax(Duration.ofSeconds(4))
        .shutdownTimeout(Duration.ofSeconds(3))
        .build();
  }

  static MaintenanceOptions maintenanceOptions() {
    return MaintenanceOptions.builder()
        .batchSize(200)
        .recoveryDelay(Duration.ofSeconds(3))
        .sweepInterval(Duration.ofMillis(500))
        .leaseDuration(Duration.ofSeconds(2))
        .claimDuration(CLAIM_DURATION)
        .cleanupInterval(Duration.ofMinutes(10))
        .shutdownTimeout(Duration.ofSeconds(3))
        .build();
  }

  static LaneOptions laneOptions() {
    return LaneOptions.builder()
        .pollInterval(Duration.ofMillis(500))
        .leaseDuration(Duration.ofSeconds(3))
        .reconnectDelay(Duration.ofMillis(500))
        .shutdownTimeout(Duration.ofSeconds(3))
        .build();
  }

  /**
   * Runs {@code start} until it succeeds: {@code start()} checks the schema, so it fails while
   * PostgreSQL is down (a restart fault), and an instance started then waits for the database.
   */
  static void startRetrying(Runnable start) throws InterruptedException {
    while (true) {
      try {
        start.run();
        return;
      } catch (RuntimeException e) {
        System.err.println("start failed, retrying: " + e);
        Thread.sleep(500);
      }
    }
  }

  String name() {
    return args.get("name");
  }

  String destination() {
    return args.get("destination");
  }

  @Override
  public void close() {
    dispatcher.close();
    pool.close();
  }
}
