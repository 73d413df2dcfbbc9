package dev.relayer.cli;

import picocli.CommandLine.Command;

/** {@code relayer db}: commands about Relayer's tables. Needs a subcommand. */
@Command(
    name = "db",
    description = "Commands about Relayer's tables.",
    subcommands = {DbScriptCommand.class, DbVerifyCommand.class})
final class DbCommand {}
