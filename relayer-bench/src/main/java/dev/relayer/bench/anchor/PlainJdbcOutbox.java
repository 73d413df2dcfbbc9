package dev.relayer.bench.anchor;

import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.bench.pipeline.ProducingSystem;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * The combined anchor's workload written by hand over plain JDBC: what a Java client gets from
 * PostgreSQL for the writes of Relayer's steady state, with none of Relayer's code.
 *
 * <p>Each {@link #produce} is the application transaction of Relayer's producers on the wire
 * (auto-commit off, one single-row {@code INSERT … RETURNING id} with the message id bound by the
 * client, {@code COMMIT}: {@link OutboxRows#insertInTransaction}) on a pooled connection. Beside
 * them, {@code drainClients} threads run the anchor's drain ({@code drain.sql}) as prepared
 * statements: claim up to 100 eligible rows after the thread's keyset cursor ({@code FOR UPDATE
 * SKIP LOCKED}, stamped with a fresh token, rows read by the client), then delete them fenced by
 * the token, each statement in auto-commit; a claim that finds nothing starts the cursor again from
 * 0 at once, as pgbench does. Every deleted row counts as one delivery.
 */
public final class PlainJdbcOutbox implements ProducingSystem, AutoCloseable {

  private static final int BATCH = 100;

  private static final String CLAIM =
      "WITH claimable AS ("
          + " SELECT id FROM "
          + OutboxRows.TABLE
          + " WHERE status = 'pending' AND lane IS NULL AND id > ?"
          + " AND (deliver_at IS NULL OR deliver_at <= now())"
          + " AND (claim_expires_at IS NULL OR claim_expires_at <= now())"
          + " ORDER BY lane, id LIMIT "
          + BATCH
          + " FOR UPDATE SKIP LOCKED)"
          + " UPDATE "
          + OutboxRows.TABLE
          + " o SET claim_token = ?, claim_expires_at = now() + interval '30 seconds',"
          + " attempts = o.attempts + 1"
          + " FROM claimable c WHERE o.id = c.id"
          + " RETURNING o.id, o.message_id, o.transport, o.destination, o.message_type, o.headers,"
          + " o.body, o.ordering_key, o.tenant_id, o.attempts";

  private static final String DELETE =
      "DELETE FROM " + OutboxRows.TABLE + " WHERE id = ANY (?) AND claim_token = ?";

  private final DataSource pool;
  private final DeliveryProbe probe;
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private final List<Thread> drainers = new ArrayList<>();

  private PlainJdbcOutbox(DataSource pool, DeliveryProbe probe) {
    this.pool = pool;
    this.probe = probe;
  }

  /**
   * Starts {@code drainClients} drain threads over {@code pool}; producers call {@link #produce}.
   */
  public static PlainJdbcOutbox started(DataSource pool, DeliveryProbe probe, int drainClients) {
    PlainJdbcOutbox outbox = new PlainJdbcOutbox(pool, probe);
    for (int i = 1; i <= drainClients; i++) {
      Thread t = new Thread(outbox::drainUntilStopped, "bench-jdbc-drain-" + i);
      t.setDaemon(true);
      outbox.drainers.add(t);
      t.start();
    }
    return outbox;
  }

  @Override
  public void produce(long seq) throws SQLException {
    OutboxRows.insertInTransaction(pool, 1);
    probe.committed(seq);
  }

  private void drainUntilStopped() {
    try (Connection connection = pool.getConnection();
        PreparedStatement claim = connection.prepareStatement(CLAIM);
        PreparedStatement delete = connection.prepareStatement(DELETE)) {
      long cursor = 0;
      List<Long> ids = new ArrayList<>(BATCH);
      while (!stopped.get()) {
        UUID token = UUID.randomUUID();
        long highest = 0;
        ids.clear();
        claim.setLong(1, cursor);
        claim.setObject(2, token);
        try (ResultSet rows = claim.executeQuery()) {
          while (rows.next()) {
            long id = rows.getLong(1);
            ids.add(id);
            highest = Math.max(highest, id);
            rows.getObject(2);
            rows.getString(3);
            rows.getString(4);
            rows.getString(5);
            rows.getString(6);
            rows.getBytes(7);
          }
        }
        if (ids.isEmpty()) {
          cursor = 0;
          continue;
        }
        cursor = highest;
        delete.setArray(1, connection.createArrayOf("bigint", ids.toArray()));
        delete.setObject(2, token);
        int deleted = delete.executeUpdate();
        for (int i = 0; i < deleted; i++) {
          probe.delivered(-1);
        }
      }
    } catch (SQLException | RuntimeException e) {
      if (!stopped.get()) {
        failure.compareAndSet(null, e);
      }
    }
  }

  /** Stops the drain threads; rethrows what stopped one of them early, if anything did. */
  @Override
  public void close() {
    stopped.set(true);
    try {
      for (Thread t : drainers) {
        t.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping the drain threads", e);
    }
    Exception e = failure.get();
    if (e != null) {
      throw new IllegalStateException("a plain-JDBC drain thread failed", e);
    }
  }
}
