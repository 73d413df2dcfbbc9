package dev.relayer.cli;

import dev.relayer.api.RelayerException;
import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.schema.SchemaFinding;
import dev.relayer.store.schema.SchemaReport;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jooq.exception.DataAccessException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code relayer db verify}: compares the installed tables with the current schema ({@link
 * RelayerStore#findDrift}) and prints every difference, one line each; exit code {@value
 * RelayerCli#EXIT_OK} when there is none, {@value RelayerCli#EXIT_DRIFT} when there is, {@value
 * RelayerCli#EXIT_FAILURE} when it cannot run (no connection).
 */
@Command(
    name = "verify",
    description = {
      "Checks that every table, column (type, nullability, default), constraint and index of the"
          + " current schema is installed and compatible, and prints each difference on a line"
          + " of its own. It changes nothing: it creates the current schema as temporary tables in"
          + " a transaction that it rolls back, and compares the two.",
      "Exit code 0: no difference; 3: differences found (an install at an older schema version N"
          + " is one: relayer db script --from N prints its upgrade to version "
          + PostgreSqlOutboxSchema.CURRENT_VERSION
          + "); 1: it could not run."
    })
final class DbVerifyCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection = new ConnectionOptions();

  @Option(names = "--json", description = "Print JSON instead of lines.")
  boolean json;

  @Override
  public Integer call() {
    ConnectionOptions.Database database = connection.database(spec, "error");
    RelayerStore store = database.store();
    PrintWriter out = spec.commandLine().getOut();
    SchemaReport report;
    try (Connection c = database.connect()) {
      report = store.findDrift(ConnectionOptions.Database.dsl(c));
    } catch (SQLException | DataAccessException | RelayerException e) {
      spec.commandLine()
          .getErr()
          .println(
              ErrorLine.of(
                  spec.qualifiedName()
                      + ": cannot verify "
                      + store.displayName()
                      + " at "
                      + database.where()
                      + ": "
                      + ConnectionOptions.redacted(String.valueOf(e.getMessage()))));
      return RelayerCli.EXIT_FAILURE;
    }
    if (json) {
      Map<String, @Nullable Object> document = new LinkedHashMap<>();
      document.put("schema", store.names().schema());
      document.put("prefix", store.names().prefix());
      document.put("expected_version", PostgreSqlOutboxSchema.CURRENT_VERSION);
      document.put("installed_version", report.installedVersion().orElse(null));
      document.put("compatible", report.compatible());
      List<Object> findings = new ArrayList<>();
      for (SchemaFinding f : report.findings()) {
        Map<String, @Nullable Object> item = new LinkedHashMap<>();
        item.put("kind", f.kind());
        item.put("name", f.name());
        item.put("problem", f.problem());
        findings.add(item);
      }
      document.put("findings", findings);
      out.println(Json.write(document));
    } else if (report.compatible()) {
      out.println(
          store.displayName()
              + ": schema version "
              + PostgreSqlOutboxSchema.CURRENT_VERSION
              + ", every table, column, constraint and index present and compatible");
    } else {
      for (SchemaFinding f : report.findings()) {
        out.println(ErrorLine.of(f.problem()));
      }
    }
    out.flush();
    if (out.checkError()) {
      spec.commandLine()
          .getErr()
          .println(spec.qualifiedName() + ": could not write to standard output");
      return RelayerCli.EXIT_FAILURE;
    }
    return report.compatible() ? RelayerCli.EXIT_OK : RelayerCli.EXIT_DRIFT;
  }
}
