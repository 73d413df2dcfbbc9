package dev.relayer.cli;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.schema.SchemaOptions;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code relayer db script}: prints {@link PostgreSqlOutboxSchema#createScript} for the given
 * schema and prefix on standard output. The options are validated before anything is printed: an
 * unsupported provider or an invalid identifier is a usage error, and standard output stays empty.
 */
@Command(
    name = "script",
    description = {
      "Prints the SQL script that creates Relayer's schema, tables, constraints and indexes.",
      "Every statement uses IF NOT EXISTS: running it again keeps existing tables and rows,"
          + " but it never repairs or upgrades a table of another shape.",
      "The script has no transaction statements; run it with psql -1 to apply it atomically."
    },
    footer = {"", "Example:", "  relayer db script --provider postgres --schema messaging | psql"})
final class DbScriptCommand implements Callable<Integer> {

  /** Provider names accepted by {@code --provider}, compared without regard to case. */
  static final Set<String> POSTGRES_NAMES = Set.of("postgres", "postgresql");

  @Spec private CommandSpec spec;

  @Option(
      names = "--provider",
      required = true,
      paramLabel = "<provider>",
      description = "The database. Only postgres is supported.")
  private String provider;

  @Option(
      names = "--schema",
      paramLabel = "<schema>",
      defaultValue = SchemaOptions.DEFAULT_SCHEMA,
      description =
          "Schema of the tables, used exactly as given (quoted; case, spaces and Unicode kept)."
              + " Default: ${DEFAULT-VALUE}")
  private String schema;

  @Option(
      names = "--prefix",
      paramLabel = "<prefix>",
      defaultValue = SchemaOptions.DEFAULT_PREFIX,
      description =
          "Prefix of every table, index and constraint name; --prefix \"\" for none."
              + " Default: ${DEFAULT-VALUE}")
  private String prefix;

  @Override
  public Integer call() {
    if (!POSTGRES_NAMES.contains(provider.toLowerCase(Locale.ROOT))) {
      throw new ParameterException(
          spec.commandLine(),
          "unsupported provider '"
              + provider
              + "': Relayer runs on PostgreSQL only (--provider postgres)");
    }
    SchemaOptions options;
    try {
      options = SchemaOptions.of(schema, prefix);
    } catch (InvalidInputException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    String script = PostgreSqlOutboxSchema.createScript(options);
    PrintWriter out = spec.commandLine().getOut();
    out.print(script);
    if (out.checkError()) {
      spec.commandLine()
          .getErr()
          .println(spec.qualifiedName() + ": could not write the script to standard output");
      return RelayerCli.EXIT_FAILURE;
    }
    return RelayerCli.EXIT_OK;
  }
}
