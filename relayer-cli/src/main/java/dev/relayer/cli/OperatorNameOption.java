package dev.relayer.cli;

import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * {@code --operator NAME}: who the audit trail names for a mutating command; without it, the OS
 * user ({@code user.name}).
 */
final class OperatorNameOption {

  @Option(
      names = "--operator",
      paramLabel = "<name>",
      description =
          "Who acts, as the audit trail records it (at most 200 characters). Default: the OS"
              + " user")
  @Nullable String name;
}
