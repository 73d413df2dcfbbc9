package dev.relayer.bench.peer;

import com.gruelbox.transactionoutbox.DefaultPersistor;
import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.ExecutorSubmitter;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import dev.relayer.bench.Payload;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.bench.pipeline.DrainingSystem;
import dev.relayer.bench.pipeline.ProducingSystem;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The peer, com.gruelbox:transactionoutbox-core, configured as its README advises for an
 * application without a transaction framework:
 *
 * <ul>
 *   <li>{@code TransactionManager.fromDataSource} over the shared HikariCP pool;
 *   <li>{@code DefaultPersistor} with {@code Dialect.POSTGRESQL_9} (so {@code SKIP LOCKED} is
 *       used), creating its own {@code TXNO_OUTBOX} table;
 *   <li>an {@code ExecutorSubmitter} over a fixed pool of {@code --peer-workers} threads with a
 *       bounded queue of 16384 (its docs: bounded, "quite large … 10000+") whose rejection handler
 *       waits for space (one of the three policies its docs allow; dropping would leave rows for
 *       {@code flush()} only after {@code attemptFrequency}, 2 minutes by default);
 *   <li>a background thread that loops {@code while (outbox.flush()) {}} and then pauses, as in its
 *       README (pause 1 s here instead of a minute), with {@code flushBatchSize} from {@code
 *       --peer-flush-batch};
 *   <li>a no-op sink ({@link NoOpPeerSink}) returned by {@code Instantiator.using}.
 * </ul>
 *
 * Its per-message INFO logging is turned off by the harness's log level (WARN).
 */
final class PeerOutbox implements DrainingSystem, ProducingSystem, AutoCloseable {

  /** Table the peer creates (unquoted, so {@code txno_outbox} in PostgreSQL). */
  static final String TABLE = "txno_outbox";

  private static final Logger log = LoggerFactory.getLogger(PeerOutbox.class);
  private static final int QUEUE = 16384;
  private static final Duration FLUSH_PAUSE = Duration.ofSeconds(1);

  private final TransactionManager transactions;
  private final TransactionOutbox outbox;
  private final ThreadPoolExecutor executor;
  private final DeliveryProbe probe;
  private Thread flusher;

  PeerOutbox(DataSource dataSource, DeliveryProbe probe, int workers, int flushBatchSize) {
    this.probe = probe;
    this.transactions = TransactionManager.fromDataSource(dataSource);
    AtomicInteger threads = new AtomicInteger();
    this.executor =
        new ThreadPoolExecutor(
            workers,
            workers,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(QUEUE),
            r -> new Thread(r, "peer-worker-" + threads.incrementAndGet()),
            waitForSpace());
    NoOpPeerSink sink = new NoOpPeerSink(probe);
    this.outbox =
        TransactionOutbox.builder()
            .transactionManager(transactions)
            .persistor(DefaultPersistor.builder().dialect(Dialect.POSTGRESQL_9).build())
            .instantiator(Instantiator.using(type -> sink))
            .submitter(ExecutorSubmitter.builder().executor(executor).build())
            .flushBatchSize(flushBatchSize)
            .build();
  }

  /**
   * Loads {@code rows} entries that are already due, in the peer's own format: one entry is
   * scheduled through the peer's API (with a clock an hour behind, and a submitter that drops the
   * hand-off), then copied by the server with fresh ids. The table is then settled.
   */
  static void preload(ScenarioDatabase database, DataSource dataSource, long rows)
      throws SQLException {
    TransactionManager transactions = TransactionManager.fromDataSource(dataSource);
    TransactionOutbox loader =
        TransactionOutbox.builder()
            .transactionManager(transactions)
            .persistor(DefaultPersistor.builder().dialect(Dialect.POSTGRESQL_9).build())
            .instantiator(Instantiator.using(type -> null))
            .submitter((entry, processor) -> {})
            .clockProvider(() -> Clock.offset(Clock.systemUTC(), Duration.ofHours(-1)))
            .build();
    transactions.inTransaction(
        () ->
            loader
                .schedule(PeerSink.class)
                .send(
                    -1,
                    Payload.DESTINATION,
                    Payload.MESSAGE_TYPE,
                    Payload.headersJson(),
                    Payload.bodyText()));
    try (Connection c = database.connect();
        PreparedStatement copy =
            c.prepareStatement(
                "INSERT INTO "
                    + TABLE
                    + " (id, uniqueRequestId, invocation, lastAttemptTime, nextAttemptTime,"
                    + " attempts, blocked, processed, version)"
                    + " SELECT gen_random_uuid()::text, NULL, t.invocation, t.lastAttemptTime,"
                    + " t.nextAttemptTime, t.attempts, t.blocked, t.processed, t.version"
                    + " FROM (SELECT * FROM "
                    + TABLE
                    + " LIMIT 1) t CROSS JOIN generate_series(1, ?)")) {
      for (long done = 1; done < rows; done += 50_000) {
        copy.setLong(1, Math.min(50_000, rows - done));
        copy.executeUpdate();
      }
    }
    database.settle(TABLE);
  }

  /** Starts the flush loop (the peer's only way to pick up rows it did not just commit). */
  @Override
  public synchronized void startDraining() {
    if (flusher != null) {
      return;
    }
    flusher = new Thread(this::flushLoop, "peer-flusher");
    flusher.start();
  }

  @Override
  public void produce(long seq) {
    transactions.inTransaction(
        tx -> {
          // Runs first among the post-commit hooks, before the outbox's own hand-off.
          tx.addPostCommitHook(() -> probe.committed(seq));
          outbox
              .schedule(PeerSink.class)
              .send(
                  seq,
                  Payload.DESTINATION,
                  Payload.MESSAGE_TYPE,
                  Payload.headersJson(),
                  Payload.bodyText());
        });
  }

  @Override
  public synchronized void close() {
    try {
      if (flusher != null) {
        flusher.interrupt();
        flusher.join(TimeUnit.MINUTES.toMillis(1));
      }
      executor.shutdownNow();
      executor.awaitTermination(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void flushLoop() {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        while (!Thread.currentThread().isInterrupted() && outbox.flush()) {
          // keep flushing while there is work, as the peer's README does
        }
      } catch (RuntimeException e) {
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
        log.warn("peer flush failed; pausing", e);
      }
      try {
        Thread.sleep(FLUSH_PAUSE.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static RejectedExecutionHandler waitForSpace() {
    return (task, pool) -> {
      if (pool.isShutdown()) {
        throw new RejectedExecutionException("peer executor is shut down");
      }
      try {
        pool.getQueue().put(task);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RejectedExecutionException("interrupted while waiting for queue space", e);
      }
    };
  }
}
