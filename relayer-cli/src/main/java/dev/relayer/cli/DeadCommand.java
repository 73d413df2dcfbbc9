package dev.relayer.cli;

import dev.relayer.dispatch.RelayerOperator;
import dev.relayer.store.ops.DeadFilter;
import dev.relayer.store.ops.DeadGroup;
import dev.relayer.store.ops.DeadPage;
import dev.relayer.store.ops.DeadRow;
import dev.relayer.store.ops.DeadRowSummary;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code relayer dead}: the dead rows — {@code groups}, {@code list} and {@code show} read them;
 * {@code replay} and {@code purge} ({@link DeadActionCommand}) act on them.
 */
@Command(
    name = "dead",
    description =
        "Reads, replays and purges dead rows (rows that ran out of attempts or were"
            + " rejected for good).",
    subcommands = {
      DeadCommand.Groups.class,
      DeadCommand.ListRows.class,
      DeadCommand.Show.class,
      DeadActionCommand.Replay.class,
      DeadActionCommand.Purge.class
    })
final class DeadCommand {

  /** {@code relayer dead groups}: the dead rows by error fingerprint, most rows first. */
  @Command(
      name = "groups",
      description =
          "Prints the dead rows grouped by error fingerprint, most rows first:"
              + " count, first and last failure, destinations and a sample error. It only reads.")
  static final class Groups extends OperatorCommand {

    @Mixin DeadFilterOptions filter = new DeadFilterOptions();

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Option(
        names = "--limit",
        paramLabel = "<n>",
        defaultValue = "100",
        description = "At most this many groups (1 to 10000). Default: ${DEFAULT-VALUE}")
    int limit;

    @Override
    int run(RelayerOperator operator, PrintWriter out) {
      List<DeadGroup> groups = operator.deadGroups(filter.filter(spec, List.of()), limit);
      if (json) {
        List<Object> items = new ArrayList<>();
        for (DeadGroup g : groups) {
          items.add(RowsJson.deadGroup(g));
        }
        out.println(Json.write(Map.of("groups", items)));
        return RelayerCli.EXIT_OK;
      }
      Table table =
          new Table("FINGERPRINT", "COUNT", "FIRST FAILED", "LAST FAILED", "DESTINATIONS", "ERROR");
      for (DeadGroup g : groups) {
        table.row(
            g.fingerprint(),
            g.count(),
            g.firstFailedAt(),
            g.lastFailedAt(),
            String.join(",", g.destinations()),
            g.sampleError());
      }
      table.print(out);
      return RelayerCli.EXIT_OK;
    }
  }

  /** {@code relayer dead list}: one page of dead rows, in id order. */
  @Command(
      name = "list",
      description =
          "Prints one page of the dead rows, in id order (every column but headers and"
              + " body). The next page: --after the last id printed. It only reads.")
  static final class ListRows extends OperatorCommand {

    @Mixin DeadFilterOptions filter = new DeadFilterOptions();

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Option(
        names = "--limit",
        paramLabel = "<n>",
        defaultValue = "50",
        description = "At most this many rows (1 to 10000). Default: ${DEFAULT-VALUE}")
    int limit;

    @Option(
        names = "--after",
        paramLabel = "<id>",
        defaultValue = "0",
        description = "Rows with a higher id only. Default: ${DEFAULT-VALUE}")
    long after;

    @Override
    int run(RelayerOperator operator, PrintWriter out) {
      DeadFilter f = filter.filter(spec, List.of());
      List<DeadRowSummary> rows = operator.deadRows(new DeadPage(f, after, Long.MAX_VALUE, limit));
      Long next = rows.size() < limit ? null : rows.get(rows.size() - 1).id();
      if (json) {
        List<Object> items = new ArrayList<>();
        for (DeadRowSummary r : rows) {
          Map<String, @Nullable Object> item = new LinkedHashMap<>();
          item.put("id", r.id());
          item.put("message_id", r.messageId());
          item.put("transport", r.transport());
          item.put("destination", r.destination());
          item.put("message_type", r.messageType());
          item.put("ordering_key", r.orderingKey());
          item.put("tenant_id", r.tenantId());
          item.put("attempts", r.attempts());
          item.put("reason", r.reason());
          item.put("failed_at", r.failedAt());
          item.put("fingerprint", r.fingerprint());
          item.put("last_error", r.lastError());
          item.put("body_bytes", r.bodyBytes());
          items.add(item);
        }
        Map<String, @Nullable Object> page = new LinkedHashMap<>();
        page.put("rows", items);
        page.put("next_after", next);
        out.println(Json.write(page));
        return RelayerCli.EXIT_OK;
      }
      Table table =
          new Table(
              "ID",
              "MESSAGE ID",
              "TRANSPORT",
              "DESTINATION",
              "TYPE",
              "KEY",
              "TENANT",
              "ATTEMPTS",
              "REASON",
              "FAILED AT",
              "ERROR");
      for (DeadRowSummary r : rows) {
        table.row(
            r.id(),
            r.messageId(),
            r.transport(),
            r.destination(),
            r.messageType(),
            r.orderingKey(),
            r.tenantId(),
            r.attempts(),
            r.reason(),
            r.failedAt(),
            r.lastError());
      }
      table.print(out);
      if (next != null) {
        out.println("more: --after " + next);
      }
      return RelayerCli.EXIT_OK;
    }
  }

  /** {@code relayer dead show ID}: one dead row with its headers and body. */
  @Command(
      name = "show",
      description =
          "Prints one dead row with every column, its headers and its body (as text"
              + " when it is UTF-8, and in hexadecimal). Exit code 1 when there is no such row.")
  static final class Show extends OperatorCommand {

    @Parameters(paramLabel = "<id>", description = "The dead row's id.")
    long id;

    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @Override
    int run(RelayerOperator operator, PrintWriter out) {
      Optional<DeadRow> found = operator.deadRow(id);
      if (found.isEmpty()) {
        return fail("no dead row with id " + id);
      }
      DeadRow r = found.get();
      Map<String, @Nullable Object> row = new LinkedHashMap<>();
      row.put("id", r.id());
      row.put("message_id", r.messageId());
      row.put("transport", r.transport());
      row.put("destination", r.destination());
      row.put("message_type", r.messageType());
      row.put("ordering_key", r.orderingKey());
      row.put("lane", r.lane());
      row.put("tenant_id", r.tenantId());
      row.put("created_at", r.createdAt());
      row.put("deliver_at", r.deliverAt());
      row.put("attempts", r.attempts());
      row.put("reason", r.reason());
      row.put("failed_at", r.failedAt());
      row.put("fingerprint", r.fingerprint());
      row.put("last_error", r.lastError());
      row.put("headers", new TreeMap<>(r.headers()));
      row.put("body_bytes", r.body().length);
      row.put("body_text", r.bodyText().orElse(null));
      row.put("body_hex", r.bodyHex());
      if (json) {
        out.println(Json.write(row));
        return RelayerCli.EXIT_OK;
      }
      for (Map.Entry<String, @Nullable Object> field : row.entrySet()) {
        String name = field.getKey() + ":";
        Object value = field.getValue();
        out.println(
            name
                + " ".repeat(Math.max(1, 14 - name.length()))
                + (value == null ? "-" : ErrorLine.of(value.toString())));
      }
      return RelayerCli.EXIT_OK;
    }
  }
}
