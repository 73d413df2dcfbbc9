package dev.relayer.cli;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.schema.SchemaOptions;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code relayer db script}: prints {@link PostgreSqlOutboxSchema#createScript} (the whole current
 * schema) for the given schema and prefix on standard output, or with {@code --from N} {@link
 * PostgreSqlOutboxSchema#upgradeScript} (only the steps after version N). The options are validated
 * before anything is printed: an unsupported provider, an invalid identifier or a {@code --from}
 * that is not a version from 1 to the current one is a usage error, and standard output stays
 * empty.
 */
@Command(
    name = "script",
    description = {
      "Prints the SQL script that creates Relayer's schema, tables, constraints and indexes.",
      "Every statement uses IF NOT EXISTS: running it again keeps existing tables and rows,"
          + " but it never repairs or upgrades a table of another shape.",
      "The script has no transaction statements; run it with psql -1 to apply it atomically.",
      "With --from N it prints only the upgrade of an install at schema version N to the"
          + " current version ("
          + PostgreSqlOutboxSchema.CURRENT_VERSION
          + ")."
    },
    footer = {
      "",
      "Examples:",
      "  relayer db script --provider postgres --schema messaging | psql",
      "  relayer db script --provider postgres --schema messaging --from 1 | psql -1"
    })
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
      parameterConsumer = AttachedName.class,
      paramLabel = "<schema>",
      defaultValue =
          "${env:" + ConnectionOptions.SCHEMA_VARIABLE + ":-" + SchemaOptions.DEFAULT_SCHEMA + "}",
      description =
          "Schema of the tables, used exactly as given (quoted; case, spaces and Unicode kept)."
              + " Default: the environment variable "
              + ConnectionOptions.SCHEMA_VARIABLE
              + ", else "
              + SchemaOptions.DEFAULT_SCHEMA)
  private String schema;

  @Option(
      names = "--prefix",
      parameterConsumer = AttachedName.class,
      paramLabel = "<prefix>",
      defaultValue =
          "${env:" + ConnectionOptions.PREFIX_VARIABLE + ":-" + SchemaOptions.DEFAULT_PREFIX + "}",
      description =
          "Prefix of every table, index and constraint name; --prefix \"\" for none."
              + " Default: the environment variable "
              + ConnectionOptions.PREFIX_VARIABLE
              + ", else "
              + SchemaOptions.DEFAULT_PREFIX)
  private String prefix;

  @Option(
      names = "--from",
      paramLabel = "<version>",
      description =
          "Print only the upgrade from this schema version (1 to the current one) to the"
              + " current one. Default: the whole schema")
  private @Nullable String from;

  /** {@code --from} as a version; a usage error when it is not one. */
  private @Nullable Integer fromVersion() {
    if (from == null) {
      return null;
    }
    int current = PostgreSqlOutboxSchema.CURRENT_VERSION;
    String range = "a schema version from 1 to " + current + " (the current one)";
    int version;
    try {
      version = Integer.parseInt(from.trim());
    } catch (NumberFormatException e) {
      throw new ParameterException(
          spec.commandLine(), "--from must be " + range + ", not '" + from + "'");
    }
    if (version < 1 || version > current) {
      throw new ParameterException(
          spec.commandLine(), "--from must be " + range + ", was " + version);
    }
    return version;
  }

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
    Integer version = fromVersion();
    String script =
        version == null
            ? PostgreSqlOutboxSchema.createScript(options)
            : PostgreSqlOutboxSchema.upgradeScript(options, version);
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
