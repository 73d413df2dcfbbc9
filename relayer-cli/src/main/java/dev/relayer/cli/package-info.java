/**
 * The {@code relayer} command line ({@link dev.relayer.cli.RelayerCli}).
 *
 * <p>{@code relayer db script --provider postgres [--schema S] [--prefix P]} prints the script of
 * {@link dev.relayer.schema.PostgreSqlOutboxSchema} for the given schema (default {@code public})
 * and table prefix (default {@code relayer_}; {@code --prefix ""} for none).
 *
 * <p>{@code relayer status [--by transport|destination|tenant] [--limit N] [--json]} prints {@link
 * dev.relayer.dispatch.RelayerOperator#status}: one health check with the default thresholds, the
 * backlog by group (eligible, in flight, retrying, scheduled, parked, oldest ages; the largest
 * {@code --limit} groups, the rest summed), the longest-parked keys, dead rows by fingerprint,
 * leases and live instances (owners of unexpired leases: Relayer keeps no other registry of
 * instances), dead tuples and the xmin horizon. It exits 0 whenever it ran, whatever the health:
 * the verdict is output ({@code "status"} in the JSON), not an exit code.
 *
 * <p>{@code relayer dead groups|list|show|replay|purge} and {@code relayer parked
 * list|retry|skip|release} run the actions of {@link dev.relayer.dispatch.RelayerOperator} on dead
 * rows and parked keys. Every command that connects shares {@link
 * dev.relayer.cli.ConnectionOptions} ({@code --url}, else {@code RELAYER_URL}, else the libpq
 * environment; {@code --schema}, {@code --prefix}); reads print a table or, with {@code --json},
 * one JSON document; a mutating command asks first unless {@code --yes}, and without a terminal
 * refuses (exit 2).
 *
 * <p>{@code relayer db script --from N} prints only the upgrade of an install at schema version N;
 * {@code relayer db verify} compares the installed tables with the current schema and prints each
 * difference on a line (exit code 3 when there is one). The mutating commands take {@code
 * --operator NAME} (default: the OS user) for the audit trail, which {@code relayer audit list}
 * reads, and {@code --json} for their outcome.
 *
 * <p>Conventions every command follows: standard output carries only the result, so that it can be
 * piped (for example into {@code psql}); an error is exactly one line on standard error and leaves
 * standard output empty; exit code 0 is success (including {@code --help} and {@code --version}), 1
 * a failure while running, 2 an invalid command line (unknown command or option, missing value,
 * unsupported provider, invalid identifier), 3 differences found by {@code db verify}. Output is
 * UTF-8 whatever the platform default; arguments are decoded by the JVM with the locale's charset,
 * so non-ASCII names need a UTF-8 locale, and an argument that could not be decoded is rejected
 * rather than used.
 */
@NullMarked
package dev.relayer.cli;

import org.jspecify.annotations.NullMarked;
