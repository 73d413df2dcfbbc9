package dev.relayer.dispatch;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import java.time.Duration;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A separate JVM that owns lanes until it is killed: {@code url user password owner delayMillis
 * hangAfter}. It sends through {@link BrokerLogTransport} and prints {@code started} once its lanes
 * run.
 */
public final class LaneOwnerProcess {

  private LaneOwnerProcess() {}

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource direct = new PGSimpleDataSource();
    direct.setURL(args[0]);
    direct.setUser(args[1]);
    if (!"-".equals(args[2])) {
      direct.setPassword(args[2]);
    }
    HikariConfig config = new HikariConfig();
    config.setDataSource(direct);
    config.setMaximumPoolSize(6);
    HikariDataSource pool = new HikariDataSource(config);
    RelayerStore store = RelayerStore.create(StoreOptions.defaults());
    RelayerDispatcher dispatcher =
        RelayerDispatcher.builder(store, DSL.using(pool, SQLDialect.POSTGRES))
            .transport(
                new BrokerLogTransport(
                    direct, args[3], Long.parseLong(args[4]), Integer.parseInt(args[5])))
            .options(DispatchFixture.fastOptions().build())
            .build();
    RelayerLanes lanes =
        RelayerLanes.builder(dispatcher)
            .owner(args[3])
            .options(LaneFailoverIT.laneOptions().build())
            .build();
    dispatcher.start();
    lanes.start();
    System.out.println("started");
    System.out.flush();
    Thread.sleep(Duration.ofMinutes(5).toMillis());
  }
}
