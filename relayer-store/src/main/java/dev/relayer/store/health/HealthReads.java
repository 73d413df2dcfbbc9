package dev.relayer.store.health;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.internal.StoreChecks;
import dev.relayer.store.internal.StoreDsl;
import dev.relayer.store.internal.StoreJdbc;
import dev.relayer.store.ops.ParkedKey;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jooq.DSLContext;

/**
 * The reads behind health checks, meters and status reports: the eligible backlog, the outbox's
 * health in one statement, the backlog by group, parked keys, dead rows, leases, dead tuples and
 * what holds the xmin horizon back. Reads only; each runs on the caller's {@link DSLContext}. Run
 * them at probe rates (seconds), not per message. Thread-safe; one per store.
 */
public final class HealthReads {

  private final StoreDsl mapping;
  private final LeaseReads leases;

  private HealthReads(RelayerStore store) {
    this.mapping = new StoreDsl(store.options().schema());
    this.leases = new LeaseReads(new StoreJdbc(mapping));
  }

  /** The reads of the tables of {@code store}. */
  public static HealthReads of(RelayerStore store) {
    return new HealthReads(Objects.requireNonNull(store, "store"));
  }

  /**
   * The eligible backlog at {@code now}: {@code status = 'pending' and (deliver_at is null or
   * deliver_at <= now) and (claim_expires_at is null or claim_expires_at <= now)}.
   */
  public Backlog backlog(DSLContext dsl, Instant now) {
    return OutboxHealthQueries.backlog(mapping.map(dsl), Objects.requireNonNull(now, "now"), null);
  }

  /** The eligible backlog of one transport at {@code now}. */
  public Backlog backlog(DSLContext dsl, Instant now, String transport) {
    StoreChecks.requireText("transport", transport);
    return OutboxHealthQueries.backlog(
        mapping.map(dsl), Objects.requireNonNull(now, "now"), transport);
  }

  /**
   * The outbox and dead table at {@code query.now()}, in one statement: the eligible backlog, the
   * oldest due pending row, rows waiting out a retry, rows never handed off, parked keys, dead rows
   * and recent dead rows; see {@link OutboxHealth}. It visits at most {@code query.rowLimit()} due
   * pending rows (the oldest) and the parked heads, and counts the dead table.
   */
  public OutboxHealth health(DSLContext dsl, HealthQuery query) {
    return OutboxHealthQueries.health(mapping.map(dsl), Objects.requireNonNull(query, "query"));
  }

  /**
   * The outbox grouped by {@code query.by()} at {@code query.now()}, in one statement: per group
   * the rows by state (eligible, in flight, retrying, scheduled, parked; see {@link BacklogCounts})
   * and the oldest ages; the {@code query.limit()} groups with the most rows one by one, the rest
   * summed, and the total. It reads every outbox row once; its output is bounded by the limit,
   * whatever the number of groups.
   */
  public BacklogBreakdown backlogBreakdown(DSLContext dsl, BacklogQuery query) {
    return BacklogQueries.breakdown(mapping.map(dsl), Objects.requireNonNull(query, "query"));
  }

  /**
   * The parked keys whose head has been parked longest, oldest first, at most {@code limit} (1 to
   * 10,000).
   */
  public List<ParkedKey> longestParkedKeys(DSLContext dsl, int limit) {
    if (limit < 1 || limit > 10_000) {
      throw new InvalidInputException("limit must be between 1 and 10000, was " + limit);
    }
    return BacklogQueries.longestParked(mapping.map(dsl), limit);
  }

  /** How many keys are parked. */
  public long parkedKeyCount(DSLContext dsl) {
    return OutboxHealthQueries.parkedKeyCount(mapping.map(dsl));
  }

  /** How many rows the dead table holds. */
  public long deadCount(DSLContext dsl) {
    return DeadCounts.count(mapping.map(dsl));
  }

  /**
   * Dead tuples of Relayer's tables (outbox, dead table, inbox, leases), from {@code
   * pg_stat_user_tables}, in that order; a table that does not exist is left out. One statement;
   * see {@link TableDeadTuples} for how fresh the counts are.
   */
  public List<TableDeadTuples> deadTuples(DSLContext dsl) {
    return TableStatsQueries.deadTuples(mapping.map(dsl), mapping.names());
  }

  /**
   * What holds this database's xmin horizon back: sessions with an open snapshot or transaction id
   * (those the role may see), replication slots with an {@code xmin} and prepared transactions,
   * oldest first; see {@link XminHorizon}. Three statements on PostgreSQL's views, none on
   * Relayer's tables.
   */
  public XminHorizon xminHorizon(DSLContext dsl) {
    return HorizonQueries.horizon(mapping.map(dsl));
  }

  /** The lease row, if any. */
  public Optional<LeaseState> lease(DSLContext dsl, String name) {
    StoreChecks.requireText("lease name", name);
    return leases.find(dsl, name);
  }

  /**
   * Every lease row, expired or not, by name: the sweeper, cleanup, each lane ({@code lane/<n>})
   * and each live lane instance's heartbeat ({@code instance/<owner>}). Graceful shutdown deletes
   * an owner's rows; an expired row is an owner that stopped without it.
   */
  public List<LeaseState> leases(DSLContext dsl) {
    return leases.all(dsl, "");
  }

  /** Unexpired leases whose name starts with {@code prefix}, by database clock. */
  public List<LeaseState> liveLeases(DSLContext dsl, String prefix) {
    StoreChecks.requireWritable("lease name prefix", Objects.requireNonNull(prefix, "prefix"));
    return leases.live(dsl, prefix);
  }
}
