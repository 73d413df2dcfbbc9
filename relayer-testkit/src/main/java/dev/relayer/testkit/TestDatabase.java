package dev.relayer.testkit;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A fresh, empty database on the {@linkplain TestPostgres#server() shared test server}, dropped
 * (with every connection still open to it) on {@link #close()}. Use one per test class.
 *
 * <pre>{@code
 * try (TestDatabase db = TestDatabase.create()) {
 *   RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
 *   ...
 * }
 * }</pre>
 */
public final class TestDatabase implements AutoCloseable {

  private final PostgresServer server;
  private final String name;
  private final PGSimpleDataSource dataSource;
  private boolean closed;

  private TestDatabase(PostgresServer server, String name) {
    this.server = server;
    this.name = name;
    this.dataSource = server.dataSource(name);
  }

  /** Creates a database with a unique name on the shared test server. */
  public static TestDatabase create() {
    PostgresServer server = TestPostgres.server();
    byte[] random = new byte[6];
    ThreadLocalRandom.current().nextBytes(random);
    String name = "relayer_test_" + HexFormat.of().formatHex(random);
    execute(server, "CREATE DATABASE " + name + " ENCODING 'UTF8' TEMPLATE template0");
    return new TestDatabase(server, name);
  }

  /** The database's name (unquoted, lower case). */
  public String name() {
    return name;
  }

  /** The server the database lives on. */
  public PostgresServer server() {
    return server;
  }

  /** A data source without pooling: every call opens a new connection. */
  public DataSource dataSource() {
    return dataSource;
  }

  /** The JDBC URL of this database, without credentials; see {@link #user()}. */
  public String jdbcUrl() {
    return dataSource.getURL();
  }

  /** The user tests connect as. */
  public String user() {
    return server.user();
  }

  /** The password, or {@code null}. */
  public @Nullable String password() {
    return server.password();
  }

  /** Opens a new connection to this database. */
  public Connection connect() throws SQLException {
    return dataSource.getConnection();
  }

  /** Drops the database, terminating connections still open to it. Idempotent. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      execute(server, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
  }

  private static void execute(PostgresServer server, String sql) {
    try (Connection connection = server.connectAdmin();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("Could not run '" + sql + "' on " + server.source(), e);
    }
  }
}
