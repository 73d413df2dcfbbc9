package dev.relayer.dispatch.internal.lane;

import dev.relayer.dispatch.internal.Durations;
import dev.relayer.store.Lanes;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jooq.ConnectionProvider;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one connection listening on the store's lane channel and wakes the lanes that the
 * notifications name (each payload a comma-separated list of lanes). When the connection fails (or
 * its backend is terminated) it is closed and reopened after {@code reconnectDelay}, and every
 * assigned lane is woken once, since notifications sent meanwhile are lost. Polling covers whatever
 * still slips through.
 *
 * <p><b>Self-test.</b> After each {@code LISTEN} the listener sends one notification on the channel
 * from another connection and waits up to {@link #SELF_TEST_WAIT} for it on the listening one.
 * Behind a pooler in transaction (or statement) mode — PgBouncer's {@code pool_mode = transaction}
 * — {@code LISTEN} succeeds but stays on a server connection the client gives back after the
 * statement, so no notification ever arrives. When the test notification does not, the listener
 * logs one warning naming that cause, closes the connection and stops: the lanes poll every {@code
 * pollInterval} from then on. Every listener on the channel receives the test notification and
 * ignores it: it wakes no lane and is not counted in {@link #notifications()}.
 */
public final class LaneWakeupListener implements Runnable {

  /** Where the listening connection comes from and goes back to. */
  public interface Connections {
    Connection open() throws SQLException;

    void close(Connection connection);

    /** Connections of a data source: opened, and closed when done. */
    static Connections of(DataSource dataSource) {
      return new Connections() {
        @Override
        public Connection open() throws SQLException {
          return dataSource.getConnection();
        }

        @Override
        public void close(Connection connection) {
          try {
            connection.close();
          } catch (SQLException e) {
            log.debug("closing the listening connection failed", e);
          }
        }
      };
    }

    /** Connections of a jOOQ connection provider: acquired, and released when done. */
    static Connections of(ConnectionProvider provider) {
      return new Connections() {
        @Override
        public Connection open() {
          return provider.acquire();
        }

        @Override
        public void close(Connection connection) {
          provider.release(connection);
        }
      };
    }
  }

  private static final Logger log = LoggerFactory.getLogger(LaneWakeupListener.class);
  private static final int WAIT_MILLIS = 250;

  /** How long the self-test waits for its notification: 2 s. */
  public static final Duration SELF_TEST_WAIT = Duration.ofSeconds(2);

  /** How a self-test notification's payload starts; it names no lane. */
  static final String SELF_TEST_PREFIX = "self-test ";

  private final String store;
  private final String channel;
  private final Connections connections;
  private final LaneScheduler scheduler;
  private final Duration reconnectDelay;
  private final Duration checkInterval;
  private final CountDownLatch stop = new CountDownLatch(1);
  private final AtomicLong notifications = new AtomicLong();
  private final AtomicLong connects = new AtomicLong();
  private volatile int backendPid;

  public LaneWakeupListener(
      String store,
      String channel,
      Connections connections,
      LaneScheduler scheduler,
      Duration reconnectDelay,
      Duration checkInterval) {
    this.store = store;
    this.channel = channel;
    this.connections = connections;
    this.scheduler = scheduler;
    this.reconnectDelay = reconnectDelay;
    this.checkInterval = checkInterval;
  }

  /** Notifications of this store's channel received so far, self-tests left out. */
  public long notifications() {
    return notifications.get();
  }

  /** How many times the listening connection was opened and subscribed. */
  public long connects() {
    return connects.get();
  }

  /** The server process id of the current listening connection, or 0. */
  public int backendPid() {
    return backendPid;
  }

  /** Makes {@link #run()} return within a fraction of a second. */
  public void stop() {
    stop.countDown();
  }

  @Override
  public void run() {
    boolean failing = false;
    while (stop.getCount() > 0) {
      Connection connection = null;
      try {
        connection = connections.open();
        if (!connection.isWrapperFor(PGConnection.class)) {
          log.warn(
              "store={} the listening connection is not a PostgreSQL JDBC connection; lanes fall"
                  + " back to polling",
              store);
          return;
        }
        PGConnection pg = connection.unwrap(PGConnection.class);
        listen(connection);
        if (!selfTest(pg)) {
          log.warn(
              "store={} channel={} LISTEN does not work on this connection: a test notification"
                  + " sent from another connection did not arrive within {}. This is what PgBouncer"
                  + " in transaction pooling mode does (LISTEN stays on a server connection the"
                  + " client no longer holds). Lanes fall back to polling every pollInterval; for"
                  + " wake-ups, give Relayer a listening data source that reaches PostgreSQL"
                  + " directly or through session pooling (listenConnections)",
              store,
              channel,
              Durations.format(SELF_TEST_WAIT));
          return;
        }
        backendPid = pg.getBackendPID();
        connects.incrementAndGet();
        if (failing) {
          log.info("store={} channel={} listening again", store, channel);
        } else {
          log.debug("store={} channel={} listening", store, channel);
        }
        failing = false;
        scheduler.wakeAll();
        receive(connection, pg);
      } catch (Throwable e) {
        if (!failing) {
          log.warn(
              "store={} channel={} listening connection lost; reconnecting every {} (lanes keep"
                  + " polling meanwhile)",
              store,
              channel,
              Durations.format(reconnectDelay),
              e);
        } else {
          log.debug("store={} channel={} reconnect failed", store, channel, e);
        }
        failing = true;
      } finally {
        backendPid = 0;
        if (connection != null) {
          closeQuietly(connection);
        }
      }
      if (stop.getCount() > 0) {
        await(reconnectDelay);
      }
    }
  }

  private void listen(Connection connection) throws SQLException {
    if (!connection.getAutoCommit()) {
      connection.setAutoCommit(true);
    }
    // LISTEN has no jOOQ DSL; the channel is rendered as a quoted identifier.
    DSL.using(connection, SQLDialect.POSTGRES).query("LISTEN {0}", DSL.name(channel)).execute();
  }

  /**
   * Sends a notification on the channel from another connection and waits for it on {@code pg},
   * waking the lanes of any other notification that arrives meanwhile; whether it arrived.
   */
  private boolean selfTest(PGConnection pg) throws SQLException {
    String payload = SELF_TEST_PREFIX + UUID.randomUUID();
    Connection other = connections.open();
    try {
      DSL.using(other, SQLDialect.POSTGRES)
          .select(DSL.function("pg_notify", Object.class, DSL.inline(channel), DSL.val(payload)))
          .fetch();
      if (!other.getAutoCommit()) {
        other.commit();
      }
    } finally {
      closeQuietly(other);
    }
    long deadline = System.nanoTime() + SELF_TEST_WAIT.toNanos();
    boolean arrived = false;
    while (!arrived && stop.getCount() > 0) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        break;
      }
      PGNotification[] received = pg.getNotifications((int) Math.min(left, WAIT_MILLIS));
      if (received != null) {
        for (PGNotification notification : received) {
          if (!channel.equals(notification.getName())) {
            continue;
          }
          if (payload.equals(notification.getParameter())) {
            arrived = true;
          } else if (!notification.getParameter().startsWith(SELF_TEST_PREFIX)) {
            notifications.incrementAndGet();
            wake(notification.getParameter());
          }
        }
      }
    }
    return arrived || stop.getCount() == 0;
  }

  private void receive(Connection connection, PGConnection pg) throws SQLException {
    long nextCheck = System.nanoTime() + checkInterval.toNanos();
    while (stop.getCount() > 0) {
      PGNotification[] received = pg.getNotifications(WAIT_MILLIS);
      if (received != null) {
        for (PGNotification notification : received) {
          if (channel.equals(notification.getName())
              && !notification.getParameter().startsWith(SELF_TEST_PREFIX)) {
            notifications.incrementAndGet();
            wake(notification.getParameter());
          }
        }
      }
      if (System.nanoTime() >= nextCheck) {
        // A connection that died silently never reports an error while waiting.
        if (!connection.isValid(5)) {
          throw new SQLException("the listening connection stopped answering");
        }
        nextCheck = System.nanoTime() + checkInterval.toNanos();
      }
    }
  }

  /** Wakes the lanes a payload names: a list of lane numbers ({@code Lanes.payloads}). */
  private void wake(String payload) {
    Set<Integer> lanes = Lanes.lanesIn(payload);
    if (lanes.isEmpty()) {
      log.debug("store={} channel={} ignored payload '{}'", store, channel, payload);
    }
    lanes.forEach(scheduler::wake);
  }

  private void closeQuietly(Connection connection) {
    try {
      connections.close(connection);
    } catch (RuntimeException e) {
      log.debug("store={} closing the listening connection failed", store, e);
    }
  }

  private void await(Duration delay) {
    try {
      stop.await(delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop.countDown();
    }
  }
}
