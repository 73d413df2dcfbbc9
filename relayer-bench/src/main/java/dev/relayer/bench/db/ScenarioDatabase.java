package dev.relayer.bench.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.schema.SchemaOptions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * A fresh database for one run of one scenario, created with {@code CREATE DATABASE} and dropped
 * (with {@code FORCE}) on {@link #close()}, together with the pools opened on it.
 */
public final class ScenarioDatabase implements AutoCloseable {

  private final PgServer server;
  private final String name;
  private final List<HikariDataSource> pools = new ArrayList<>();
  private final AtomicLong commits = new AtomicLong();
  private boolean closed;

  private ScenarioDatabase(PgServer server, String name) {
    this.server = server;
    this.name = name;
  }

  /** Creates a database named after the scenario with a random suffix. */
  public static ScenarioDatabase create(PgServer server, String scenario) throws SQLException {
    byte[] random = new byte[4];
    ThreadLocalRandom.current().nextBytes(random);
    String name =
        "relayer_bench_"
            + scenario.replaceAll("[^a-z0-9]", "_")
            + "_"
            + HexFormat.of().formatHex(random);
    server.executeAdmin("CREATE DATABASE " + name + " ENCODING 'UTF8' TEMPLATE template0");
    return new ScenarioDatabase(server, name);
  }

  /** The database's name (unquoted, lower case). */
  public String name() {
    return name;
  }

  /** The server it lives on. */
  public PgServer server() {
    return server;
  }

  /** The JDBC URL of this database. */
  public String url() {
    return server.urlOf(name);
  }

  /** Opens a plain connection (auto-commit on). */
  public Connection connect() throws SQLException {
    return server.connect(name);
  }

  /** Runs statements one by one in auto-commit mode. */
  public void execute(String... statements) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }

  /** Runs a query returning one number. */
  public long queryLong(String sql) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Reads one row of a result. */
  @FunctionalInterface
  public interface RowReader {
    void read(ResultSet row) throws SQLException;
  }

  /** Runs a query on a connection of its own and hands every row to {@code reader}, in order. */
  public void forEachRow(String sql, RowReader reader) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        reader.read(rs);
      }
    }
  }

  /** Creates Relayer's tables with the project's own DDL (default schema and prefix). */
  public void installRelayerSchema() throws SQLException {
    execute(
        PostgreSqlOutboxSchema.createStatements(SchemaOptions.defaults()).toArray(String[]::new));
  }

  /**
   * Makes a freshly loaded table look like one that has been live for a while before a burn-down
   * starts: {@code VACUUM ANALYZE} (sets hint bits and the visibility map, gives the planner
   * statistics; autovacuum may be off or not have run yet) and a {@code CHECKPOINT} (so the load's
   * checkpoint does not land inside the measurement). Every burn-down gets the same treatment.
   */
  public void settle(String table) throws SQLException {
    execute("VACUUM ANALYZE " + table);
    try {
      execute("CHECKPOINT");
    } catch (SQLException e) {
      // Needs superuser or pg_checkpoint; without it the measurement may include a checkpoint.
    }
  }

  /**
   * A HikariCP pool of exactly {@code size} connections on this database, closed with the database.
   */
  public synchronized DataSource pool(String poolName, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url());
    config.setPoolName(poolName);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    config.setConnectionTimeout(60_000);
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return new CommitCountingDataSource(pool, commits);
  }

  /** Commits made so far through this database's pools. */
  public long commits() {
    return commits.get();
  }

  /** Closes the pools and drops the database, ending connections still open to it. */
  @Override
  public synchronized void close() throws SQLException {
    if (closed) {
      return;
    }
    closed = true;
    for (HikariDataSource pool : pools) {
      pool.close();
    }
    server.executeAdmin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  }
}
