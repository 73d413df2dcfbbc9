package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.ordered;
import static dev.relayer.dispatch.LaneWakeupsIT.notifications;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.store.Lanes;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.transport.memory.InMemoryTransport;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The dispatcher's lane notifier, seen from a connection that listens on the store's channel as
 * another instance would: what it sends after commits, how often, and what becomes of it when its
 * connection breaks or the dispatcher closes.
 */
class LaneNotifierIT {

  static final Duration WAIT = Duration.ofSeconds(15);

  DispatchFixture fx;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture();
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private RelayerDispatcher writer(RelayerStore store, DSLContext dsl, Duration interval) {
    RelayerDispatcher writer =
        fx.track(
            RelayerDispatcher.builder(store, dsl)
                .transport(InMemoryTransport.named("memory"))
                .options(DispatchFixture.fastOptions().laneNotifyInterval(interval).build())
                .build());
    writer.start();
    return writer;
  }

  private static Set<Integer> lanesIn(List<PGNotification> received) {
    Set<Integer> lanes = new TreeSet<>();
    for (PGNotification notification : received) {
      lanes.addAll(Lanes.lanesIn(notification.getParameter()));
    }
    return lanes;
  }

  @Test
  void manyConcurrentCommitsShareFewNotificationsThatNameEveryLaneWritten() throws Exception {
    Duration interval = Duration.ofMillis(50);
    RelayerDispatcher writer = writer(fx.store, fx.dsl, interval);
    DSLContext app = fx.app(writer);
    int threads = 8;
    int commitsPerThread = 40;
    Set<Integer> written = new TreeSet<>();
    for (int i = 0; i < threads * commitsPerThread; i++) {
      written.add(Lanes.laneOf("key-" + i, StoreOptions.DEFAULT_LANES));
    }

    try (Connection listener = fx.listening()) {
      PGConnection pg = listener.unwrap(PGConnection.class);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      long started = System.nanoTime();
      try {
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int thread = t;
          running.add(
              pool.submit(
                  () -> {
                    for (int c = 0; c < commitsPerThread; c++) {
                      NewMessage message = ordered("key-" + (thread * commitsPerThread + c));
                      app.transaction(tx -> fx.store.enqueue(tx.dsl(), message));
                    }
                  }));
        }
        for (Future<?> future : running) {
          future.get();
        }
      } finally {
        pool.shutdown();
      }
      long elapsedMillis = (System.nanoTime() - started) / 1_000_000;

      List<PGNotification> received = notifications(pg, 2_000);
      int commits = threads * commitsPerThread;
      assertThat(lanesIn(received)).isEqualTo(written);
      assertThat(received.size())
          .as("%d commits in %d ms, one round per %s at most", commits, elapsedMillis, interval)
          .isLessThanOrEqualTo((int) (elapsedMillis / interval.toMillis()) + 2)
          .isLessThan(commits / 4);
      assertThat(writer.laneNotificationRounds()).isEqualTo(received.size());
    }
  }

  @Test
  void lanesBeyondOnePayloadAreSplitIntoSeveralNotificationsOfOneRound() throws Exception {
    RelayerStore wide = RelayerStore.create(StoreOptions.defaults().withLaneCount(4096));
    RelayerDispatcher writer = writer(wide, fx.dsl, Duration.ofMillis(5));
    List<NewMessage> messages = new ArrayList<>();
    Set<Integer> written = new TreeSet<>();
    for (int i = 0; written.size() < 3000; i++) {
      messages.add(ordered("key-" + i));
      written.add(Lanes.laneOf("key-" + i, 4096));
    }

    try (Connection listener = fx.listening()) {
      PGConnection pg = listener.unwrap(PGConnection.class);
      fx.app(writer).transaction(tx -> wide.enqueue(tx.dsl(), messages));

      List<PGNotification> received = notifications(pg, 5_000);
      assertThat(received).hasSizeGreaterThan(1);
      assertThat(received)
          .allSatisfy(n -> assertThat(n.getParameter().length()).isLessThanOrEqualTo(7999));
      assertThat(lanesIn(received)).isEqualTo(written);
      assertThat(writer.laneNotificationRounds()).isEqualTo(1);
    }
  }

  @Test
  void theNotifierGoesOnAfterItsConnectionsAreTerminated() throws Exception {
    HikariConfig config = new HikariConfig();
    config.setDataSource(fx.database.dataSource());
    config.setMaximumPoolSize(2);
    config.setConnectionInitSql("SET application_name = 'relayer-notifier-test'");
    try (HikariDataSource own = new HikariDataSource(config)) {
      RelayerDispatcher writer =
          writer(fx.store, DSL.using(own, SQLDialect.POSTGRES), Duration.ofMillis(5));
      DSLContext app = fx.app(writer);
      try (Connection listener = fx.listening()) {
        PGConnection pg = listener.unwrap(PGConnection.class);
        app.transaction(tx -> fx.store.enqueue(tx.dsl(), ordered("before")));
        assertThat(lanesIn(notifications(pg, 5_000)))
            .contains(Lanes.laneOf("before", StoreOptions.DEFAULT_LANES));

        Integer terminated =
            fx.dsl
                .fetchOne(
                    "select count(pg_terminate_backend(pid)) from pg_stat_activity"
                        + " where application_name = 'relayer-notifier-test'")
                .get(0, Integer.class);
        assertThat(terminated).isPositive();
        app.transaction(tx -> fx.store.enqueue(tx.dsl(), ordered("after")));

        int lane = Lanes.laneOf("after", StoreOptions.DEFAULT_LANES);
        List<PGNotification> received = new ArrayList<>();
        await()
            .atMost(WAIT)
            .until(
                () -> {
                  received.addAll(notifications(pg, 200));
                  return lanesIn(received).contains(lane);
                });
      }
    }
  }

  @Test
  void closingTheDispatcherStopsItsNotifierThread() throws Exception {
    RelayerDispatcher writer = writer(fx.store, fx.dsl, Duration.ofMillis(5));
    fx.app(writer).transaction(tx -> fx.store.enqueue(tx.dsl(), ordered("key-1")));
    await().atMost(WAIT).until(() -> writer.laneNotificationRounds() == 1);
    assertThat(notifierThreads()).isNotEmpty();

    writer.close();

    assertThat(notifierThreads()).isEmpty();
  }

  @Test
  void withLaneNotificationsOffTheWriterSendsNothing() throws Exception {
    RelayerStore quiet = RelayerStore.create(StoreOptions.defaults().withLaneNotifications(false));
    RelayerDispatcher writer = writer(quiet, fx.dsl, Duration.ofMillis(5));
    try (Connection listener = fx.listening()) {
      PGConnection pg = listener.unwrap(PGConnection.class);

      fx.app(writer).transaction(tx -> quiet.enqueue(tx.dsl(), ordered("key-1")));

      assertThat(notifications(pg, 500)).isEmpty();
      assertThat(writer.laneNotificationRounds()).isZero();
      assertThat(notifierThreads()).isEmpty();
    }
  }

  private static List<Thread> notifierThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(t -> t.getName().contains("-lane-notify-"))
        .toList();
  }
}
