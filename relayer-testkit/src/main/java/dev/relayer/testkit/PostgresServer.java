package dev.relayer.testkit;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A running PostgreSQL server that tests may create databases on.
 *
 * @param source where it came from: {@code RELAYER_PG_URL}, {@code testcontainers} or {@code
 *     embedded}
 * @param adminUrl JDBC URL of a database to connect to for creating and dropping test databases
 * @param user user name, a superuser or a role with CREATEDB
 * @param password password, or {@code null}
 */
public record PostgresServer(
    String source, String adminUrl, String user, @Nullable String password) {

  /** A data source for {@code database} on this server. */
  public PGSimpleDataSource dataSource(String database) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(adminUrl);
    dataSource.setDatabaseName(database);
    dataSource.setUser(user);
    if (password != null) {
      dataSource.setPassword(password);
    }
    return dataSource;
  }

  /** A data source for the admin database. */
  public PGSimpleDataSource adminDataSource() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(adminUrl);
    dataSource.setUser(user);
    if (password != null) {
      dataSource.setPassword(password);
    }
    return dataSource;
  }

  /** Opens a connection to the admin database. */
  public Connection connectAdmin() throws SQLException {
    return adminDataSource().getConnection();
  }

  /** The admin URL's properties, as pgjdbc parses them. */
  Properties urlProperties() {
    Properties properties = org.postgresql.Driver.parseURL(adminUrl, new Properties());
    if (properties == null) {
      throw new IllegalArgumentException("not a PostgreSQL JDBC URL: " + adminUrl);
    }
    return properties;
  }
}
