package dev.relayer.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.ScopeType;

/**
 * {@code relayer}: the top-level command. It does nothing by itself; called without a subcommand it
 * is a usage error. {@code --help} and {@code --version} are inherited by every subcommand.
 */
@Command(
    name = "relayer",
    scope = ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Relayer for Java: a transactional outbox and inbox on PostgreSQL.",
    footer = {
      "",
      "Exit codes: 0 success, 1 failure while running, 2 invalid command line,"
          + " 3 db verify found differences.",
      "Errors are one line on standard error; standard output carries only the result."
    },
    subcommands = {
      DbCommand.class,
      StatusCommand.class,
      DeadCommand.class,
      ParkedCommand.class,
      AuditCommand.class
    })
final class RelayerCommand {}
