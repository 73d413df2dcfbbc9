package dev.relayer.store;

import static dev.relayer.store.OutboxJdbc.eligible;
import static dev.relayer.store.OutboxQueries.utc;

import dev.relayer.schema.SchemaNames;
import dev.relayer.store.StoreJdbc.Params;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * The outbox statements of ordered lanes: the lane claim, giving back rows a pass did not attempt,
 * the next instant a lane has work, and the notification that wakes a lane's owner. A lane pass
 * runs them on every wake-up, so they are SQL text over JDBC (see {@link StoreJdbc}).
 */
final class OutboxLaneQueries {

  private final StoreJdbc jdbc;
  private final String table;

  /** The lane claim that claims heads only. */
  private final String claimHeads;

  /** The lane claim that also claims the rows following each head that may share its batch. */
  private final String claimRuns;

  private final String hasDueHead;
  private final String unclaim;
  private final String nextDue;
  private final String outsideLanes;

  OutboxLaneQueries(StoreJdbc jdbc) {
    this.jdbc = jdbc;
    this.table = jdbc.table(SchemaNames.OUTBOX);
    this.claimHeads = claim("SELECT head_id AS id, ordering_key, 1 AS pos FROM due_heads");
    this.claimRuns = claim(runs());
    this.hasDueHead =
        heads()
            + " SELECT EXISTS (SELECT 1 FROM heads JOIN "
            + table
            + " AS o ON o.id = heads.head_id WHERE "
            + eligible("o")
            + ")";
    this.unclaim =
        "UPDATE "
            + table
            + " SET claim_token = NULL, claim_expires_at = NULL,"
            + " attempts = greatest(attempts - 1, 0) WHERE id = ANY(?) AND claim_token = ?";
    this.nextDue =
        "SELECT min(greatest(deliver_at, claim_expires_at)) FROM "
            + table
            + " WHERE lane = ? AND status = 'pending' AND (deliver_at > ? OR claim_expires_at > ?)";
    this.outsideLanes = "SELECT count(*) FROM " + table + " WHERE lane >= ?";
  }

  /**
   * The lane claim, one statement:
   *
   * <ol>
   *   <li>{@code heads}: per key of the lane, its head — the lowest pending id — skipping keys with
   *       a parked row (a parked row is always its key's head);
   *   <li>{@code due_heads}: the heads that are eligible (pending, due, no live claim or retry
   *       hold), oldest first, at most {@code maxKeys};
   *   <li>{@code candidates}: the heads — and, when followers are asked for, the rows of those keys
   *       numbered from the head ({@code pos}) up to the first row that is not eligible or may not
   *       share the head's batch (another transport or destination, or a transport that does not
   *       keep batch order), at most {@code 1 + followers} per key;
   *   <li>{@code locked}: those rows locked {@code FOR UPDATE SKIP LOCKED}, eligibility checked
   *       again on the current row version;
   *   <li>{@code claimable}: per key, only the unbroken prefix of locked rows — if a head (or any
   *       row) was skipped, nothing after it is claimed;
   *   <li>{@code UPDATE ... RETURNING}: fresh token, expiry, {@code attempts + 1}.
   * </ol>
   *
   * <p>Picking heads with a grouped scan keeps the cost at one pass over the lane's pending rows;
   * only the rows of the chosen keys are numbered.
   *
   * <p>Parameters: lane, lane, now, now, max keys, those of {@code candidates}, lane, now, now,
   * token, expiry.
   */
  private String claim(String candidates) {
    return heads()
        + ", due_heads AS (SELECT heads.ordering_key, heads.head_id FROM heads JOIN "
        + table
        + " AS o ON o.id = heads.head_id WHERE "
        + eligible("o")
        + " ORDER BY heads.head_id LIMIT ?),"
        + " candidates AS ("
        + candidates
        + "), locked AS (SELECT lockable.id, candidates.ordering_key, candidates.pos"
        + " FROM candidates JOIN "
        + table
        + " AS lockable ON lockable.id = candidates.id WHERE lockable.lane = ? AND "
        + eligible("lockable")
        + " FOR UPDATE OF lockable SKIP LOCKED),"
        + " claimable AS (SELECT id FROM (SELECT id, pos,"
        + " row_number() OVER (PARTITION BY ordering_key ORDER BY pos) AS rank_in_key"
        + " FROM locked) AS locked_runs WHERE rank_in_key = pos) "
        + OutboxJdbc.stamp(table, "claimable");
  }

  /**
   * {@code WITH heads AS (…)}: per key of the lane, its lowest pending id, skipping keys with a
   * parked row. Parameters: lane, lane.
   */
  private String heads() {
    return "WITH heads AS (SELECT h.ordering_key, min(h.id) AS head_id FROM "
        + table
        + " AS h WHERE h.lane = ? AND h.status = 'pending' AND NOT EXISTS (SELECT 1 FROM "
        + table
        + " AS parked_row WHERE parked_row.lane = ? AND parked_row.status = 'parked'"
        + " AND parked_row.ordering_key = h.ordering_key) GROUP BY h.ordering_key)";
  }

  /**
   * The rows of the chosen keys from the head on, numbered, up to the first row that stops the run,
   * at most {@code 1 + followers} per key. Parameters: now, now, the batch-order transports, lane,
   * {@code 1 + followers}.
   */
  private String runs() {
    return "SELECT id, ordering_key, pos FROM (SELECT id, ordering_key, pos,"
        + " sum(CASE WHEN eligible AND (pos = 1 OR joins_run) THEN 0 ELSE 1 END)"
        + " OVER (PARTITION BY ordering_key ORDER BY id) AS blocked"
        + " FROM (SELECT k.id, k.ordering_key, row_number() OVER by_key AS pos, ("
        + eligible("k")
        + ") AS eligible, (k.transport = ANY(?)"
        + " AND k.transport = first_value(k.transport) OVER by_key"
        + " AND k.destination = first_value(k.destination) OVER by_key) AS joins_run FROM "
        + table
        + " AS k JOIN due_heads ON k.ordering_key = due_heads.ordering_key"
        + " WHERE k.lane = ? AND k.status = 'pending' AND k.id >= due_heads.head_id"
        + " WINDOW by_key AS (PARTITION BY k.ordering_key ORDER BY k.id)) AS key_rows) AS runs"
        + " WHERE blocked = 0 AND pos <= ?";
  }

  Claim claim(DSLContext dsl, LaneClaim request) {
    UUID token = UUID.randomUUID();
    Instant expiresAt = request.now().plus(request.claimDuration());
    OffsetDateTime now = utc(request.now());
    int lane = request.lane();
    boolean runs = request.followers() > 0 && !request.batchingTransports().isEmpty();
    List<ClaimedMessage> claimed =
        jdbc.run(
            dsl,
            runs ? claimRuns : claimHeads,
            statement -> {
              Params params = Params.of(statement).set(lane, lane, now, now, request.maxKeys());
              if (runs) {
                String[] transports = request.batchingTransports().toArray(String[]::new);
                params.set(
                    now,
                    now,
                    statement.getConnection().createArrayOf("text", transports),
                    lane,
                    1 + request.followers());
              }
              params.set(lane, now, now, token, utc(expiresAt));
              return OutboxJdbc.claimed(statement, 0);
            });
    return new Claim(token, expiresAt, claimed);
  }

  /**
   * Whether some key of the lane has a head that is eligible at {@code now}: whether a claim would
   * find a row, leaving aside rows other transactions hold.
   */
  boolean hasDueHead(DSLContext dsl, int lane, Instant now) {
    OffsetDateTime at = utc(now);
    return jdbc.run(
        dsl,
        hasDueHead,
        statement -> {
          Params.of(statement).set(lane, lane, at, at);
          try (ResultSet row = statement.executeQuery()) {
            row.next();
            return row.getBoolean(1);
          }
        });
  }

  /**
   * Gives claimed rows back untouched: clears the claim and refunds its attempt, fenced by the
   * token. For rows a lane pass claimed but did not send (an earlier row of the key failed, or the
   * pass ran out of time).
   */
  int unclaim(DSLContext dsl, UUID token, Collection<Long> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return jdbc.run(
        dsl,
        unclaim,
        statement -> {
          Params.of(statement).ids(ids).set(token);
          return statement.executeUpdate();
        });
  }

  /**
   * The earliest instant after {@code now} at which a pending row of the lane stops being held by a
   * schedule ({@code deliver_at}) or a claim or retry hold ({@code claim_expires_at}).
   */
  Optional<Instant> nextDue(DSLContext dsl, int lane, Instant now) {
    OffsetDateTime at = utc(now);
    return jdbc.run(
        dsl,
        nextDue,
        statement -> {
          Params.of(statement).set(lane, at, at);
          try (ResultSet row = statement.executeQuery()) {
            row.next();
            return Optional.ofNullable(row.getObject(1, OffsetDateTime.class))
                .map(OffsetDateTime::toInstant);
          }
        });
  }

  /** How many ordered rows sit in lanes at or above {@code laneCount}, which no owner serves. */
  long outsideLanes(DSLContext dsl, int laneCount) {
    return jdbc.run(
        dsl,
        outsideLanes,
        statement -> {
          Params.of(statement).set(laneCount);
          try (ResultSet row = statement.executeQuery()) {
            row.next();
            return row.getLong(1);
          }
        });
  }

  /**
   * Sends one notification per lane on {@code channel} (payload: the lane number), in the caller's
   * transaction: PostgreSQL delivers them when it commits, and drops them if it rolls back.
   */
  void notifyLanes(DSLContext dsl, String channel, Set<Integer> lanes) {
    if (lanes.isEmpty()) {
      return;
    }
    List<String> calls = new ArrayList<>(lanes.size());
    List<Object> values = new ArrayList<>(2 * lanes.size());
    for (int lane : lanes) {
      calls.add("pg_notify(?, ?)");
      values.add(channel);
      values.add(Integer.toString(lane));
    }
    jdbc.run(
        dsl,
        "SELECT " + String.join(", ", calls),
        statement -> {
          Params.of(statement).set(values.toArray());
          statement.executeQuery().close();
          return null;
        });
  }
}
