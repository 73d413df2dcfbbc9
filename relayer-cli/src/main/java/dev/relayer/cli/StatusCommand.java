package dev.relayer.cli;

import dev.relayer.dispatch.HealthReport;
import dev.relayer.dispatch.RelayerHealth;
import dev.relayer.store.HorizonHolder;
import dev.relayer.store.LeaseState;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.TableDeadTuples;
import dev.relayer.store.XminHorizon;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
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
  static final String URL_VARIABLE = ConnectionOptions.URL_VARIABLE;

  @Spec private CommandSpec spec;

  @Mixin private ConnectionOptions connection = new ConnectionOptions();

  @Override
  public Integer call() {
    ConnectionOptions.Database database = connection.database(spec, "warn");
    RelayerStore store = database.store();
    HealthReport report;
    try (Connection c = database.connect()) {
      report = RelayerHealth.builder(store).build().check(ConnectionOptions.Database.dsl(c));
    } catch (SQLException e) {
      spec.commandLine()
          .getErr()
          .println(
              ErrorLine.of(
                  spec.qualifiedName()
                      + ": cannot read "
                      + store.displayName()
                      + " at "
                      + database.where()
                      + ": "
                      + ConnectionOptions.redacted(String.valueOf(e.getMessage()))));
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
}
