package dev.relayer.cli;

import dev.relayer.dispatch.HealthReport;
import dev.relayer.dispatch.LiveInstance;
import dev.relayer.dispatch.RelayerOperator;
import dev.relayer.dispatch.RelayerStatus;
import dev.relayer.store.health.BacklogBreakdown;
import dev.relayer.store.health.BacklogCounts;
import dev.relayer.store.health.BacklogGroup;
import dev.relayer.store.health.BacklogGrouping;
import dev.relayer.store.health.BacklogQuery;
import dev.relayer.store.health.HorizonHolder;
import dev.relayer.store.health.LeaseState;
import dev.relayer.store.health.TableDeadTuples;
import dev.relayer.store.health.XminHorizon;
import dev.relayer.store.ops.DeadGroup;
import dev.relayer.store.ops.ParkedKey;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code relayer status}: what {@link RelayerOperator#status} reads of one schema and prefix — the
 * health check (default thresholds) and its reasons, the backlog broken down by transport and
 * destination ({@code --by}), the longest-parked keys, the dead rows by fingerprint, leases and
 * live instances, dead tuples and the xmin horizon — as text for people or, with {@code --json},
 * one JSON document. It only reads. The exit code says whether it ran (0), not the status: scripts
 * read {@code "status"} from the JSON.
 */
@Command(
    name = "status",
    description = {
      "Prints Relayer's status: health (default thresholds) and reasons; the backlog by"
          + " transport and destination (or --by transport or tenant) with eligible, in-flight,"
          + " retrying, scheduled and parked rows and the oldest pending and eligible ages; the"
          + " longest-parked keys; dead rows by error fingerprint; leases with their holders and"
          + " expiry and the live instances (owners of unexpired leases); dead tuples of"
          + " Relayer's tables (pg_stat_user_tables) and what holds the xmin horizon. Lists are"
          + " bounded by --limit, the rest summed. It only reads; exit code 0 whatever the"
          + " status."
    },
    footer = {
      "",
      "Examples:",
      "  relayer status --url 'jdbc:postgresql://db:5432/app?user=relayer' --schema messaging",
      "  relayer status --by tenant --limit 50 --json"
    })
final class StatusCommand extends OperatorCommand {

  /** The environment variable {@code --url} defaults to. */
  static final String URL_VARIABLE = ConnectionOptions.URL_VARIABLE;

  @Option(
      names = "--by",
      paramLabel = "<grouping>",
      defaultValue = "destination",
      description =
          "Group the backlog by transport, destination (transport and destination) or tenant."
              + " Default: ${DEFAULT-VALUE}")
  String by = "destination";

  @Option(
      names = "--limit",
      paramLabel = "<n>",
      defaultValue = "" + RelayerStatus.DEFAULT_LIMIT,
      description =
          "At most this many backlog groups, parked keys and dead-row groups (1 to "
              + BacklogQuery.MAX_LIMIT
              + "); the rest are summed. Default: ${DEFAULT-VALUE}")
  int limit = RelayerStatus.DEFAULT_LIMIT;

  @Option(names = "--json", description = "Print one JSON document instead of text.")
  boolean json;

  private BacklogGrouping grouping = BacklogGrouping.DESTINATION;

  @Override
  void validate() {
    grouping =
        switch (by.trim().toLowerCase(Locale.ROOT)) {
          case "transport" -> BacklogGrouping.TRANSPORT;
          case "destination" -> BacklogGrouping.DESTINATION;
          case "tenant" -> BacklogGrouping.TENANT;
          default ->
              throw new ParameterException(
                  spec.commandLine(),
                  "--by must be transport, destination or tenant, was '" + by + "'");
        };
    if (limit < 1 || limit > BacklogQuery.MAX_LIMIT) {
      throw new ParameterException(
          spec.commandLine(),
          "--limit must be between 1 and " + BacklogQuery.MAX_LIMIT + ", was " + limit);
    }
  }

  @Override
  int run(RelayerOperator operator, PrintWriter out) {
    RelayerStatus status = operator.status(grouping, limit);
    if (json) {
      out.println(Json.write(StatusJson.of(status)));
    } else {
      print(out, status);
    }
    return RelayerCli.EXIT_OK;
  }

  // ---------------------------------------------------------------------------------------------
  // Text
  // ---------------------------------------------------------------------------------------------

  static void print(PrintWriter out, RelayerStatus status) {
    HealthReport report = status.health();
    BacklogBreakdown backlog = status.backlog();
    // The health check's counts stop at its row limit; the breakdown below counts every row.
    String atLeast = report.rowLimitReached() ? "at least " : "";
    out.println("store:            " + status.store());
    out.println("at:               " + report.at());
    out.println("status:           " + report.status().name().toLowerCase(Locale.ROOT));
    for (String reason : report.reasons()) {
      out.println("  reason:         " + reason);
    }
    out.println(
        "eligible:         "
            + atLeast
            + report.eligible()
            + " (oldest "
            + age(report.oldestEligibleAge())
            + ")");
    out.println("oldest pending:   " + age(report.oldestPendingAge()));
    out.println(
        "retrying:         "
            + atLeast
            + report.retrying()
            + " (oldest "
            + age(report.oldestRetryingAge())
            + ")");
    out.println("scheduled:        " + backlog.total().scheduled());
    out.println("never handed off: " + atLeast + report.neverHandedOff());
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

    out.println();
    printBacklog(out, backlog, status.limit());

    out.println();
    if (status.longestParked().isEmpty()) {
      out.println("parked keys: none");
    } else {
      out.println("parked keys (longest parked first, at most " + status.limit() + "):");
      Table parked = new Table("KEY", "LANE", "HEAD ID", "ATTEMPTS", "PARKED AT", "ERROR");
      for (ParkedKey k : status.longestParked()) {
        parked.row(
            k.orderingKey(), k.lane(), k.headId(), k.attempts(), k.parkedAt(), k.lastError());
      }
      parked.print(out);
      long more = report.parkedKeys() - status.longestParked().size();
      if (more > 0) {
        out.println("(" + more + " more parked keys: relayer parked list)");
      }
    }

    out.println();
    if (status.deadGroups().isEmpty()) {
      out.println("dead rows by fingerprint: none");
    } else {
      out.println("dead rows by fingerprint (most rows first, at most " + status.limit() + "):");
      Table dead =
          new Table("FINGERPRINT", "COUNT", "FIRST FAILED", "LAST FAILED", "DESTINATIONS", "ERROR");
      for (DeadGroup g : status.deadGroups()) {
        dead.row(
            g.fingerprint(),
            g.count(),
            g.firstFailedAt(),
            g.lastFailedAt(),
            String.join(",", g.destinations()),
            g.sampleError());
      }
      dead.print(out);
      if (status.otherDeadRows() > 0) {
        out.println(
            "("
                + status.otherDeadRows()
                + " more dead rows under other fingerprints: relayer dead groups)");
      }
    }

    out.println();
    if (report.leases().isEmpty()) {
      out.println("leases: none");
    } else {
      out.println("leases (database clock):");
      Table leases = new Table("NAME", "OWNER", "EXPIRES AT", "LIVE");
      for (LeaseState lease : report.leases()) {
        leases.row(
            lease.name(), lease.owner(), lease.expiresAt(), status.isLive(lease) ? "yes" : "no");
      }
      leases.print(out);
    }
    if (status.instances().isEmpty()) {
      out.println("live instances: none hold a lease");
    } else {
      out.println("live instances (owners of unexpired leases):");
      Table instances = new Table("OWNER", "HEARTBEAT UNTIL", "LEASES UNTIL", "LEASES");
      for (LiveInstance instance : status.instances()) {
        instances.row(
            instance.owner(),
            instance.heartbeatExpiresAt().orElse(null),
            instance.expiresAt(),
            String.join(",", instance.leases()));
      }
      instances.print(out);
    }

    out.println();
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

  private static void printBacklog(PrintWriter out, BacklogBreakdown backlog, int limit) {
    List<String> keys = keyHeaders(backlog.by());
    out.println(
        "backlog by "
            + String.join(" and ", keys).toLowerCase(Locale.ROOT)
            + " (largest "
            + limit
            + " groups; ages since due):");
    List<String> header = new ArrayList<>(keys);
    header.addAll(
        List.of(
            "ROWS",
            "ELIGIBLE",
            "IN FLIGHT",
            "RETRYING",
            "SCHEDULED",
            "PARKED",
            "OLDEST PENDING",
            "OLDEST ELIGIBLE"));
    Table table = new Table(header.toArray(String[]::new));
    for (BacklogGroup group : backlog.groups()) {
      List<@Nullable Object> cells = new ArrayList<>();
      switch (backlog.by()) {
        case TRANSPORT -> cells.add(group.transport());
        case DESTINATION -> {
          cells.add(group.transport());
          cells.add(group.destination());
        }
        case TENANT -> cells.add(group.tenantId() == null ? "(none)" : group.tenantId());
      }
      table.row(counts(cells, group.counts()));
    }
    if (backlog.otherGroups() > 0) {
      table.row(labelled(keys.size(), backlog.otherGroups() + " more", backlog.others()));
    }
    table.row(labelled(keys.size(), "total", backlog.total()));
    table.print(out);
  }

  private static List<String> keyHeaders(BacklogGrouping by) {
    return switch (by) {
      case TRANSPORT -> List.of("TRANSPORT");
      case DESTINATION -> List.of("TRANSPORT", "DESTINATION");
      case TENANT -> List.of("TENANT");
    };
  }

  private static @Nullable Object[] labelled(int keys, String label, BacklogCounts counts) {
    List<@Nullable Object> cells = new ArrayList<>();
    cells.add(label);
    for (int i = 1; i < keys; i++) {
      cells.add("");
    }
    return counts(cells, counts);
  }

  private static @Nullable Object[] counts(List<@Nullable Object> cells, BacklogCounts c) {
    cells.add(c.rows());
    cells.add(c.eligible());
    cells.add(c.inFlight());
    cells.add(c.retrying());
    cells.add(c.scheduled());
    cells.add(c.parked());
    cells.add(c.oldestPendingAge().orElse(null));
    cells.add(c.oldestEligibleAge().orElse(null));
    return cells.toArray();
  }

  private static String age(Optional<Duration> age) {
    return age.map(Duration::toString).orElse("none");
  }
}
