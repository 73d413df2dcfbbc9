package dev.relayer.testkit;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A {@code REPEATABLE READ} transaction holding a snapshot open on a connection of its own, as an
 * analytics query, {@code pg_dump} or a session left idle in transaction would: while it is open,
 * the database's xmin horizon stays where the snapshot took it, and vacuum removes no row version
 * that died after it. {@link #close()} rolls it back and closes the connection.
 *
 * <pre>{@code
 * try (HeldSnapshot pin = HeldSnapshot.take(db.connect(), "nightly-report", "public.relayer_outbox")) {
 *   ... // pin.pid() shows in pg_stat_activity as idle in transaction, with a backend_xmin
 * }
 * }</pre>
 */
public final class HeldSnapshot implements AutoCloseable {

  private final Connection connection;
  private final int pid;

  private HeldSnapshot(Connection connection, int pid) {
    this.connection = connection;
    this.pid = pid;
  }

  /**
   * Sets {@code application_name}, opens the transaction ({@code BEGIN ISOLATION LEVEL REPEATABLE
   * READ}) on {@code connection} and takes its snapshot with a first query on {@code relation} (a
   * table name as SQL writes it, quoted where needed). The connection belongs to the returned
   * object from then on; it is closed if this fails.
   */
  public static HeldSnapshot take(Connection connection, String applicationName, String relation)
      throws SQLException {
    try (Statement s = connection.createStatement()) {
      int pid;
      try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pid = rs.getInt(1);
      }
      connection.setClientInfo("ApplicationName", applicationName);
      connection.setAutoCommit(false);
      connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      try (ResultSet rs = s.executeQuery("SELECT 1 FROM " + relation + " LIMIT 1")) {
        rs.next(); // the snapshot is taken by the transaction's first query
      }
      return new HeldSnapshot(connection, pid);
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  /** The process id of the backend holding the snapshot. */
  public int pid() {
    return pid;
  }

  /** Rolls the transaction back and closes its connection; the horizon moves on. */
  @Override
  public void close() throws SQLException {
    try {
      connection.rollback();
    } finally {
      connection.close();
    }
  }
}
