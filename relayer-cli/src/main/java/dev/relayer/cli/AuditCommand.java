package dev.relayer.cli;

import dev.relayer.dispatch.RelayerOperator;
import dev.relayer.store.ops.AuditEntry;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code relayer audit}: the audit trail of operator actions ({@code <prefix>operations}). */
@Command(
    name = "audit",
    description = "Reads the audit trail of operator actions (replay, purge, parked keys).",
    subcommands = {AuditCommand.ListEntries.class})
final class AuditCommand {

  /** {@code relayer audit list}: the newest audit rows, newest first. */
  @Command(
      name = "list",
      description =
          "Prints the newest audit rows, newest first: when, who, what, the filter and how many"
              + " rows. It only reads.")
  static final class ListEntries extends OperatorCommand {

    @Option(
        names = "--since",
        paramLabel = "<instant>",
        description = "Only actions that began at or after this ISO-8601 instant.")
    @Nullable Instant since;

    @Option(
        names = "--limit",
        paramLabel = "<n>",
        defaultValue = "50",
        description = "At most this many rows (1 to 10000). Default: ${DEFAULT-VALUE}")
    int limit;

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Override
    int run(RelayerOperator operator, PrintWriter out) {
      List<AuditEntry> entries = operator.auditEntries(since, limit);
      if (json) {
        List<Object> items = new ArrayList<>();
        for (AuditEntry e : entries) {
          Map<String, @Nullable Object> item = new LinkedHashMap<>();
          item.put("id", e.id());
          item.put("at", e.at());
          item.put("operator", e.operator());
          item.put("operation", e.operation());
          item.put("filter", JsonText.of(e.filter()));
          item.put("rows", e.rows());
          items.add(item);
        }
        out.println(Json.write(Map.of("operations", items)));
        return RelayerCli.EXIT_OK;
      }
      Table table = new Table("ID", "AT", "OPERATOR", "OPERATION", "ROWS", "FILTER");
      for (AuditEntry e : entries) {
        table.row(e.id(), e.at(), e.operator(), e.operation(), e.rows(), e.filter());
      }
      table.print(out);
      return RelayerCli.EXIT_OK;
    }
  }
}
