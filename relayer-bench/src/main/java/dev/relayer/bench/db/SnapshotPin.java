package dev.relayer.bench.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A {@code REPEATABLE READ} transaction holding a snapshot on a connection of its own, as an
 * analytics query, {@code pg_dump} or a session left idle in transaction would: while it is open,
 * the database's xmin horizon stays where the snapshot took it, and vacuum removes no row version
 * that died after it. {@link #close()} rolls it back.
 */
public final class SnapshotPin implements AutoCloseable {

  private final ScenarioDatabase database;
  private final Connection connection;
  private final int pid;

  private SnapshotPin(ScenarioDatabase database, Connection connection, int pid) {
    this.database = database;
    this.connection = connection;
    this.pid = pid;
  }

  /**
   * Opens the transaction ({@code BEGIN ISOLATION LEVEL REPEATABLE READ}) and takes its snapshot
   * with a first query on {@code table}.
   */
  public static SnapshotPin hold(ScenarioDatabase database, String table) throws SQLException {
    Connection c = database.connect();
    try (Statement s = c.createStatement()) {
      int pid;
      try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pid = rs.getInt(1);
      }
      s.execute("SET application_name = 'relayer-bench-pin'");
      s.execute("BEGIN ISOLATION LEVEL REPEATABLE READ");
      try (ResultSet rs = s.executeQuery("SELECT 1 FROM " + table + " LIMIT 1")) {
        rs.next(); // the snapshot is taken by the transaction's first query
      }
      return new SnapshotPin(database, c, pid);
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** The backend holding the snapshot. */
  public int pid() {
    return pid;
  }

  /**
   * {@code age(backend_xmin)} of the pinned backend: transaction ids assigned since its snapshot,
   * read from {@code pg_stat_activity} on another connection.
   */
  public long xminAge() throws SQLException {
    try (Connection c = database.connect();
        PreparedStatement s =
            c.prepareStatement("SELECT age(backend_xmin) FROM pg_stat_activity WHERE pid = ?")) {
      s.setInt(1, pid);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("the pinned backend " + pid + " is gone");
        }
        return rs.getLong(1);
      }
    }
  }

  /** Rolls the transaction back and closes its connection; the horizon moves on. */
  @Override
  public void close() throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute("ROLLBACK");
    } finally {
      connection.close();
    }
  }
}
