package dev.relayer.bench.db;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PostgreSQL server named by a JDBC URL such as {@code
 * jdbc:postgresql://127.0.0.1:5432/test?user=postgres}. The URL's own database is only used to
 * create and drop the per-scenario databases.
 */
public final class PgServer {

  private static final Pattern URL =
      Pattern.compile("^(jdbc:postgresql://[^/?]*/)([^?]*)(\\?.*)?$", Pattern.CASE_INSENSITIVE);

  private final String url;
  private final String prefix;
  private final String query;
  private final Properties properties;

  private PgServer(String url, String prefix, String query, Properties properties) {
    this.url = url;
    this.prefix = prefix;
    this.query = query;
    this.properties = properties;
  }

  /** Parses {@code url}; throws {@link IllegalArgumentException} if it is not a PostgreSQL URL. */
  public static PgServer of(String url) {
    Matcher m = URL.matcher(url);
    Properties properties = org.postgresql.Driver.parseURL(url, new Properties());
    if (!m.matches() || properties == null) {
      throw new IllegalArgumentException(
          "not a PostgreSQL JDBC URL: '"
              + redact(url)
              + "' (expected jdbc:postgresql://host:port/database?user=...)");
    }
    return new PgServer(url, m.group(1), m.group(3) == null ? "" : m.group(3), properties);
  }

  /** The URL with any password replaced by {@code ***}, for reports and messages. */
  public String redactedUrl() {
    return redact(url);
  }

  /** The JDBC URL of database {@code name} on this server, with the same parameters. */
  public String urlOf(String name) {
    return prefix + name + query;
  }

  /** Opens a connection to the URL's own database. */
  public Connection connectAdmin() throws SQLException {
    return DriverManager.getConnection(url);
  }

  /** Opens a connection to database {@code name}. */
  public Connection connect(String name) throws SQLException {
    return DriverManager.getConnection(urlOf(name));
  }

  /** Runs one statement on the URL's own database. */
  public void executeAdmin(String sql) throws SQLException {
    try (Connection c = connectAdmin();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /**
   * The libpq environment (PGHOST, PGPORT, PGUSER, PGPASSWORD) that points a client tool such as
   * pgbench at this server.
   */
  public Map<String, String> libpqEnvironment() {
    String host = properties.getProperty("PGHOST", "localhost");
    String port = properties.getProperty("PGPORT", "5432");
    // A URL may list several hosts; client tools take the first.
    host = host.split(",", -1)[0];
    port = port.split(",", -1)[0];
    String user = properties.getProperty("user", System.getProperty("user.name"));
    String password = properties.getProperty("password");
    return password == null
        ? Map.of("PGHOST", host, "PGPORT", port, "PGUSER", user)
        : Map.of("PGHOST", host, "PGPORT", port, "PGUSER", user, "PGPASSWORD", password);
  }

  private static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&]*", "$1***");
  }
}
