package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.testkit.ForwardingDataSource;
import dev.relayer.testkit.PrivatePostgres;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.transport.memory.InMemoryTransport;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * Closing while the database is down: on a PostgreSQL of the test's own, crashed with {@code pg_ctl
 * stop -m immediate} while lanes and maintenance hold their leases, {@code close()} gives up
 * releasing after the first release that fails, instead of waiting out the pool's connection
 * timeout once per lease.
 */
class ShutdownWithoutDatabaseIT {

  /** Counts the connections asked of a pool. */
  private static final class CountingDataSource extends ForwardingDataSource {
    final AtomicInteger asked = new AtomicInteger();

    CountingDataSource(DataSource pool) {
      super(pool);
    }

    @Override
    public Connection getConnection() throws SQLException {
      asked.incrementAndGet();
      return super.getConnection();
    }
  }

  @Test
  void closingLanesWithTheDatabaseDownAsksForAConnectionOnceNotOncePerLaneLease() throws Exception {
    try (PrivatePostgres postgres =
        PrivatePostgres.start(
            new PrivatePostgres.Config("shutdown", "relayer", Map.of(), Optional.empty()))) {
      RelayerSchemaInstaller.applyScript(postgres.dataSource(), SchemaOptions.defaults());
      HikariConfig config = new HikariConfig();
      config.setDataSource(postgres.dataSource());
      config.setMaximumPoolSize(4);
      config.setConnectionTimeout(500);
      try (HikariDataSource pool = new HikariDataSource(config)) {
        CountingDataSource counting = new CountingDataSource(pool);
        DSLContext dsl = DSL.using(counting, SQLDialect.POSTGRES);
        RelayerDispatcher dispatcher =
            RelayerDispatcher.builder(RelayerStore.create(StoreOptions.defaults()), dsl)
                .transport(InMemoryTransport.named("memory"))
                .options(DispatchFixture.fastOptions().build())
                .build();
        dispatcher.start();
        RelayerLanes lanes =
            RelayerLanes.builder(dispatcher)
                .owner("only")
                .options(LaneFailoverIT.laneOptions().listen(false).build())
                .build();
        lanes.start();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> lanes.ownedLanes().size() == StoreOptions.DEFAULT_LANES);

        postgres.crash();
        counting.asked.set(0);
        lanes.close();
        int askedByLanes = counting.asked.get();
        dispatcher.close();

        // Before: one connection asked per lane lease and one for the heartbeat (each waiting out
        // the pool's timeout); now one release fails and ends it, besides at most a pass per
        // worker that was running when the database went away.
        assertThat(askedByLanes).isLessThan(StoreOptions.DEFAULT_LANES / 2);
      }
    }
  }
}
