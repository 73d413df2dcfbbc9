package dev.relayer.bench.db;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that counts the {@link Connection#commit()} calls made on its connections, so that
 * a scenario can report how many commits each message cost (with {@code synchronous_commit = on},
 * every commit waits for a WAL flush). Statements run in auto-commit mode are not counted.
 */
public final class CommitCountingDataSource implements DataSource {

  private final DataSource delegate;
  private final AtomicLong commits;

  CommitCountingDataSource(DataSource delegate, AtomicLong commits) {
    this.delegate = delegate;
    this.commits = commits;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return counting(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return counting(delegate.getConnection(username, password));
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

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    return type.isInstance(this) ? type.cast(this) : delegate.unwrap(type);
  }

  @Override
  public boolean isWrapperFor(Class<?> type) throws SQLException {
    return type.isInstance(this) || delegate.isWrapperFor(type);
  }
}
