package dev.relayer.dispatch;

import dev.relayer.store.health.LeaseState;
import dev.relayer.store.health.TableDeadTuples;
import dev.relayer.store.health.XminHorizon;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A health check: the status, the rules that set it, and what the outbox, the dead table, the
 * leases and this process's sends looked like. Ages of pending rows are measured from when the row
 * became due ({@code deliver_at}, else {@code created_at}) to {@link #at()}.
 *
 * @param status the worst of the rules' verdicts (see {@link RelayerHealth})
 * @param reasons one line per rule that made the status worse than healthy, empty when healthy;
 *     when keys are parked, the first line goes on to name the longest-parked keys (see {@link
 *     RelayerHealth})
 * @param at the instant the check was evaluated at
 * @param eligible rows that are pending, due and not under a live claim or retry hold
 * @param oldestEligibleAge how long the oldest eligible row has waited since it became due
 * @param oldestPendingAge how long the oldest due pending row has waited, eligible or not (also
 *     rows under a claim or waiting out a retry)
 * @param retrying pending rows that failed and wait out a retry hold
 * @param oldestRetryingAge how long the oldest retrying row has been due: an upper bound on how
 *     long it has been failing (no column records the first failure, which came at or after it was
 *     due)
 * @param failing pending due rows that failed at least once and were not sent since: waiting out a
 *     retry hold, due again, or claimed for another try ({@code last_error} set). Each has had
 *     nothing but failures since it became due
 * @param oldestFailingAge how long the oldest failing row has been due: an upper bound on how long
 *     it has been failing, and what the oldest-failing-age rule judges
 * @param neverHandedOff unordered rows older than the recovery delay that no one ever claimed and
 *     that were due when written: their hand-off is missing (or direct dispatch is not running) and
 *     the sweeper has not reached them yet
 * @param rowLimitReached the outbox read stopped at the check's row limit: at least that many due
 *     rows are pending, and {@code eligible}, {@code retrying}, {@code failing} and {@code
 *     neverHandedOff} count only the oldest of them (lower bounds); the ages stay the oldest (see
 *     {@link dev.relayer.store.health.OutboxHealth#rowLimitReached()}). See {@link RelayerHealth}
 *     for the status
 * @param parkedKeys ordering keys held for an operator
 * @param oldestParkedAge how long the longest-parked head has been parked
 * @param deadRows rows in the dead table
 * @param deadRowsLastHour dead rows whose {@code failed_at} lies within the hour before {@link
 *     #at()}
 * @param leases every lease row (sweeper, cleanup, {@code lane/<n>}, {@code instance/<owner>}) with
 *     its holder and expiry (database clock), by name
 * @param transports per transport, this process's sends over the last minute; empty when the check
 *     was not given a dispatcher
 * @param tables dead tuples of Relayer's tables (outbox, dead table, inbox, leases) from {@code
 *     pg_stat_user_tables}: estimates the server updates asynchronously, within about a second of
 *     the writing transaction's end
 * @param xminHorizon what holds the database's xmin horizon back (sessions the role may see,
 *     replication slots, prepared transactions), oldest first: while it is held, vacuum cannot
 *     remove the dead tuples
 */
public record HealthReport(
    HealthStatus status,
    List<String> reasons,
    Instant at,
    long eligible,
    Optional<Duration> oldestEligibleAge,
    Optional<Duration> oldestPendingAge,
    long retrying,
    Optional<Duration> oldestRetryingAge,
    long failing,
    Optional<Duration> oldestFailingAge,
    long neverHandedOff,
    boolean rowLimitReached,
    long parkedKeys,
    Optional<Duration> oldestParkedAge,
    long deadRows,
    long deadRowsLastHour,
    List<LeaseState> leases,
    Map<String, TransportSends> transports,
    List<TableDeadTuples> tables,
    XminHorizon xminHorizon) {

  public HealthReport {
    reasons = List.copyOf(reasons);
    leases = List.copyOf(leases);
    transports = Map.copyOf(transports);
    tables = List.copyOf(tables);
  }

  /** The statistics of table {@code base} ({@code outbox}, {@code inbox}, …), if it exists. */
  public Optional<TableDeadTuples> table(String base) {
    return tables.stream().filter(t -> t.table().equals(base)).findFirst();
  }

  /** The lease row of {@code name}, if there is one. */
  public Optional<LeaseState> lease(String name) {
    return leases.stream().filter(l -> l.name().equals(name)).findFirst();
  }

  /** Who holds the sweeper lease and until when (database clock), if anyone. */
  public Optional<LeaseState> sweeperLease() {
    return lease("sweeper");
  }
}
