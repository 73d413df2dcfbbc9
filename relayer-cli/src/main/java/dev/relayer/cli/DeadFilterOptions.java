package dev.relayer.cli;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.ops.DeadFilter;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options that choose dead rows ({@link DeadFilter}): every one given must match; none given
 * matches every dead row.
 */
final class DeadFilterOptions {

  @Option(names = "--fingerprint", paramLabel = "<fp>", description = "Error fingerprint.")
  @Nullable String fingerprint;

  @Option(names = "--transport", paramLabel = "<name>", description = "Transport name.")
  @Nullable String transport;

  @Option(names = "--destination", paramLabel = "<dest>", description = "Destination.")
  @Nullable String destination;

  @Option(names = "--type", paramLabel = "<type>", description = "Message type.")
  @Nullable String messageType;

  @Option(names = "--tenant", paramLabel = "<tenant>", description = "Tenant id.")
  @Nullable String tenant;

  @Option(names = "--key", paramLabel = "<key>", description = "Ordering key.")
  @Nullable String key;

  @Option(
      names = "--reason",
      paramLabel = "<reason>",
      description = "Why the rows died: max-attempts, rejected, unknown-transport, operator.")
  @Nullable String reason;

  @Option(
      names = "--failed-from",
      paramLabel = "<instant>",
      description = "Rows that failed at or after this ISO-8601 instant (2026-03-01T12:00:00Z).")
  @Nullable Instant failedFrom;

  @Option(
      names = "--failed-before",
      paramLabel = "<instant>",
      description = "Rows that failed strictly before this ISO-8601 instant.")
  @Nullable Instant failedBefore;

  /** The filter, with {@code ids} when given; a usage error naming every bad option. */
  DeadFilter filter(CommandSpec spec, List<Long> ids) {
    try {
      return DeadFilter.builder()
          .fingerprint(fingerprint)
          .transport(transport)
          .destination(destination)
          .messageType(messageType)
          .tenantId(tenant)
          .orderingKey(key)
          .reason(reason)
          .failedFrom(failedFrom)
          .failedBefore(failedBefore)
          .ids(ids)
          .build();
    } catch (InvalidInputException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }
}
