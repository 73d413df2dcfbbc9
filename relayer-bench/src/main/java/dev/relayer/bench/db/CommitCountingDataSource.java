package dev.relayer.bench.db;

import dev.relayer.testkit.ForwardingDataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * A data source that counts the {@link Connection#commit()} calls made on its connections, so that
 * a scenario can report how many commits each message cost (with {@code synchronous_commit = on},
 * every commit waits for a WAL flush). Statements run in auto-commit mode are not counted.
 */
public final class CommitCountingDataSource extends ForwardingDataSource {

  private final AtomicLong commits;

  CommitCountingDataSource(DataSource delegate, AtomicLong commits) {
    super(delegate);
    this.commits = commits;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return counting(super.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return counting(super.getConnection(username, password));
  }

  private Connection counting(Connection connection) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getName().equals("commit") && method.getParameterCount() == 0) {
            commits.incrementAndGet();
          }
          try {
            return method.invoke(connection, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return (Connection)
        Proxy.newProxyInstance(
            CommitCountingDataSource.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            handler);
  }
}
