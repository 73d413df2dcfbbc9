package dev.relayer.cli;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The database options every command that connects shares: {@code --url} (else {@code RELAYER_URL},
 * else the libpq environment {@code PGHOST}, {@code PGPORT}, {@code PGDATABASE}, {@code PGUSER},
 * {@code PGPASSWORD}), {@code --schema} (else {@code RELAYER_SCHEMA}, else {@code public}) and
 * {@code --prefix} (else {@code RELAYER_PREFIX}, else {@code relayer_}). A password, from the URL
 * or from {@code PGPASSWORD}, is never printed: {@link Database#where()} names the database without
 * it.
 */
final class ConnectionOptions {

  /** The environment variable {@code --url} defaults to. */
  static final String URL_VARIABLE = "RELAYER_URL";

  /** The environment variable {@code --schema} defaults to, so that an operator sets it once. */
  static final String SCHEMA_VARIABLE = "RELAYER_SCHEMA";

  /** The environment variable {@code --prefix} defaults to; set but empty means no prefix. */
  static final String PREFIX_VARIABLE = "RELAYER_PREFIX";

  @Option(
      names = "--url",
      paramLabel = "<jdbc-url>",
      defaultValue = "${env:" + URL_VARIABLE + "}",
      description =
          "JDBC URL of the database, with user (and password) as parameters. Default: the"
              + " environment variable "
              + URL_VARIABLE
              + ", else the libpq variables PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD")
  private @Nullable String url;

  @Option(
      names = "--schema",
      parameterConsumer = AttachedName.class,
      paramLabel = "<schema>",
      defaultValue =
          "${env:" + ConnectionOptions.SCHEMA_VARIABLE + ":-" + SchemaOptions.DEFAULT_SCHEMA + "}",
      description =
          "Schema of Relayer's tables, exactly as given. Default: the environment variable "
              + ConnectionOptions.SCHEMA_VARIABLE
              + ", else "
              + SchemaOptions.DEFAULT_SCHEMA)
  private String schema = SchemaOptions.DEFAULT_SCHEMA;

  @Option(
      names = "--prefix",
      parameterConsumer = AttachedName.class,
      paramLabel = "<prefix>",
      defaultValue =
          "${env:" + ConnectionOptions.PREFIX_VARIABLE + ":-" + SchemaOptions.DEFAULT_PREFIX + "}",
      description =
          "Prefix of Relayer's tables; --prefix \"\" for none. Default: the environment variable "
              + ConnectionOptions.PREFIX_VARIABLE
              + ", else "
              + SchemaOptions.DEFAULT_PREFIX)
  private String prefix = SchemaOptions.DEFAULT_PREFIX;

  /** The database a command reads: a data source and the text naming it without a password. */
  record Database(RelayerStore store, PGSimpleDataSource dataSource, String where) {

    /** A connection and a jOOQ context over it, without execute logging. */
    Connection connect() throws SQLException {
      return dataSource.getConnection();
    }

    static DSLContext dsl(Connection connection) {
      return DSL.using(connection, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
    }
  }

  /**
   * Validates the options and resolves the database; a usage error ({@link ParameterException})
   * when there is none or it is invalid. Keeps library logging at {@code logLevel} and below off
   * the terminal first.
   */
  Database database(CommandSpec spec, String logLevel) {
    quietLibraries(logLevel);
    SchemaOptions options;
    try {
      options = SchemaOptions.of(schema, prefix);
    } catch (InvalidInputException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    RelayerStore store = RelayerStore.create(StoreOptions.of(options));
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    String where;
    if (url != null && !url.isBlank()) {
      String given = url.trim();
      if (!given.startsWith("jdbc:postgresql:")) {
        throw new ParameterException(
            spec.commandLine(),
            "--url must be a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database?user=...),"
                + " not '"
                + redacted(given)
                + "'");
      }
      try {
        dataSource.setURL(given);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(
            spec.commandLine(),
            "--url is not a valid PostgreSQL JDBC URL: '"
                + redacted(given)
                + "' ("
                + redacted(String.valueOf(e.getMessage()))
                + ")");
      }
      where = redacted(given);
    } else {
      Map<String, String> env = System.getenv();
      if (env.get("PGHOST") == null && env.get("PGDATABASE") == null && env.get("PGUSER") == null) {
        throw new ParameterException(
            spec.commandLine(),
            "no database: give --url or set "
                + URL_VARIABLE
                + " (or the libpq variables PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD)");
      }
      String user = env.getOrDefault("PGUSER", System.getProperty("user.name", "postgres"));
      String host = env.getOrDefault("PGHOST", "localhost");
      String database = env.getOrDefault("PGDATABASE", user);
      int port;
      try {
        port = Integer.parseInt(env.getOrDefault("PGPORT", "5432").trim());
      } catch (NumberFormatException e) {
        throw new ParameterException(
            spec.commandLine(), "PGPORT must be a port number, was '" + env.get("PGPORT") + "'");
      }
      dataSource.setServerNames(new String[] {host});
      dataSource.setPortNumbers(new int[] {port});
      dataSource.setDatabaseName(database);
      dataSource.setUser(user);
      String password = env.get("PGPASSWORD");
      if (password != null) {
        dataSource.setPassword(password);
      }
      where = "postgresql://" + user + "@" + host + ":" + port + "/" + database;
    }
    return new Database(store, dataSource, where);
  }

  /** {@code text} with every {@code password=} value replaced by {@code ***}. */
  static String redacted(String text) {
    return text.replaceAll("(?i)(password=)[^&\\s]*", "$1***");
  }

  /** jOOQ's banner and SLF4J's lines below {@code level} would land on the terminal. */
  private static void quietLibraries(String level) {
    System.setProperty("org.jooq.no-logo", "true");
    System.setProperty("org.jooq.no-tips", "true");
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level);
  }
}
