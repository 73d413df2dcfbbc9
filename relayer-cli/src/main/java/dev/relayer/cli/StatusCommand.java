package dev.relayer.cli;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.HealthReport;
import dev.relayer.dispatch.RelayerHealth;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.HorizonHolder;
import dev.relayer.store.LeaseState;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.store.TableDeadTuples;
import dev.relayer.store.XminHorizon;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code relayer status}: one health check ({@link RelayerHealth} with its default thresholds) of
 * the tables of one schema and prefix, printed for people: the status and its reasons, the backlog,
 * retries, parked keys, dead rows, leases, dead tuples of Relayer's tables and what holds the xmin
 * horizon. It only reads.
 */
@Command(
    name = "status",
    description = {
      "Prints Relayer's health: status and reasons (default thresholds), eligible backlog and"
          + " oldest ages, retrying rows, parked keys, dead rows, leases, dead tuples of Relayer's"
          + " tables (pg_stat_user_tables) and what holds the xmin horizon (sessions of this"
          + " database the role may see in pg_stat_activity, replication slots, prepared"
          + " transactions). It only reads."
    },
    footer = {
      "",
      "Example:",
      "  relayer status --url 'jdbc:postgresql://db:5432/app?user=relayer' --schema messaging"
    })
final class StatusCommand implements Callable<Integer> {

  /** The environment variable {@code --url} defaults to. */
  static final String URL_VARIABLE = "RELAYER_URL";

  @Spec private CommandSpec spec;

  @Option(
      names = "--url",
      paramLabel = "<jdbc-url>",
      defaultValue = "${env:" + URL_VARIABLE + "}",
      description =
          "JDBC URL of the database, with user (and password) as parameters. Default: the"
              + " environment variable "
              + URL_VARIABLE)
  private @Nullable String url;

  @Option(
      names = "--schema",
      paramLabel = "<schema>",
      defaultValue = SchemaOptions.DEFAULT_SCHEMA,
      description = "Schema of Relayer's tables, exactly as given. Default: ${DEFAULT-VALUE}")
  private String schema;

  @Option(
      names = "--prefix",
      paramLabel = "<prefix>",
      defaultValue = SchemaOptions.DEFAULT_PREFIX,
      description = "Prefix of Relayer's tables; --prefix \"\" for none. Default: ${DEFAULT-VALUE}")
  private String prefix;

  @Override
  public Integer call() {
    if (url == null || url.isBlank()) {
      throw new ParameterException(
          spec.commandLine(), "no database: give --url or set " + URL_VARIABLE);
    }
    if (!url.trim().startsWith("jdbc:postgresql:")) {
      throw new ParameterException(
          spec.commandLine(),
          "--url must be a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database?user=...),"
              + " not '"
              + redacted(url.trim())
              + "'");
    }
    SchemaOptions options;
    try {
      options = SchemaOptions.of(schema, prefix);
    } catch (InvalidInputException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    quietLibraries();
    RelayerStore store = RelayerStore.create(StoreOptions.of(options));
    HealthReport report;
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    try {
      dataSource.setURL(url.trim());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(),
          "--url is not a valid PostgreSQL JDBC URL: '"
              + redacted(url.trim())
              + "' ("
              + redacted(String.valueOf(e.getMessage()))
              + ")");
    }
    try (Connection connection = dataSource.getConnection()) {
      DSLContext dsl =
          DSL.using(connection, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
      report = RelayerHealth.builder(store).build().check(dsl);
    } catch (SQLException e) {
      spec.commandLine()
          .getErr()
          .println(
              ErrorLine.of(
                  spec.qualifiedName()
                      + ": cannot read "
                      + store.displayName()
                      + " at "
                      + redacted(url.trim())
                      + ": "
                      + redacted(String.valueOf(e.getMessage()))));
      return RelayerCli.EXIT_FAILURE;
    }
    PrintWriter out = spec.commandLine().getOut();
    print(out, store, report);
    out.flush();
    if (out.checkError()) {
      spec.commandLine()
          .getErr()
          .println(spec.qualifiedName() + ": could not write the status to standard output");
      return RelayerCli.EXIT_FAILURE;
    }
    return RelayerCli.EXIT_OK;
  }

  static void print(PrintWriter out, RelayerStore store, HealthReport report) {
    out.println("store:            " + store.displayName());
    out.println("at:               " + report.at());
    out.println("status:           " + report.status().name().toLowerCase(Locale.ROOT));
    for (String reason : report.reasons()) {
      out.println("  reason:         " + reason);
    }
    out.println(
        "eligible:         "
            + report.eligible()
            + " (oldest "
            + age(report.oldestEligibleAge())
            + ")");
    out.println("oldest pending:   " + age(report.oldestPendingAge()));
    out.println(
        "retrying:         "
            + report.retrying()
            + " (oldest "
            + age(report.oldestRetryingAge())
            + ")");
    out.println("never handed off: " + report.neverHandedOff());
    out.println(
        "parked keys:      "
            + report.parkedKeys()
            + " (oldest "
            + age(report.oldestParkedAge())
            + ")");
    out.println(
        "dead rows:        "
            + report.deadRows()
            + " (last hour "
            + report.deadRowsLastHour()
            + ")");
    out.println(report.leases().isEmpty() ? "leases:           none" : "leases:");
    for (LeaseState lease : report.leases()) {
      out.println(
          "  " + lease.name() + " owner=" + lease.owner() + " expires_at=" + lease.expiresAt());
    }
    out.println("tables (pg_stat_user_tables, estimates):");
    for (TableDeadTuples table : report.tables()) {
      out.println(
          "  "
              + table.qualifiedName()
              + " live="
              + table.liveTuples()
              + " dead="
              + table.deadTuples()
              + " last_vacuum="
              + table.lastVacuum().map(Object::toString).orElse("never")
              + " last_autovacuum="
              + table.lastAutovacuum().map(Object::toString).orElse("never"));
    }
    XminHorizon horizon = report.xminHorizon();
    out.println(
        "xmin horizon:     "
            + horizon
                .oldest()
                .map(h -> "oldest xmin_age=" + h.xminAge() + " (transaction ids)")
                .orElse("nothing visible holds it"));
    for (HorizonHolder holder : horizon.holders()) {
      out.println("  " + holder.describe());
    }
    if (horizon.hiddenSessions() > 0) {
      out.println(
          "  "
              + horizon.hiddenSessions()
              + " session(s) of this database are not visible to this role"
              + " (grant pg_read_all_stats to see them)");
    }
  }

  private static String age(Optional<Duration> age) {
    return age.map(Duration::toString).orElse("none");
  }

  private static String redacted(String text) {
    return text.replaceAll("(?i)(password=)[^&\\s]*", "$1***");
  }

  /** jOOQ's banner and SLF4J's INFO lines would land on the terminal: keep them off. */
  private static void quietLibraries() {
    System.setProperty("org.jooq.no-logo", "true");
    System.setProperty("org.jooq.no-tips", "true");
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
  }
}
