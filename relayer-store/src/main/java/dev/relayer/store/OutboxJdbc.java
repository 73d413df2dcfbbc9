package dev.relayer.store;

import dev.relayer.schema.SchemaNames;
import dev.relayer.store.StoreJdbc.Params;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.JSONB;

/**
 * The unordered statements every message goes through — the enqueue insert, the claim by ids, the
 * sweeper's page claim and lock, and the completing deletes — as SQL text over JDBC (see {@link
 * StoreJdbc}). The predicates are those of {@link OutboxQueries#eligible}; the literal {@code
 * status = 'pending'} also lets a reused plan use the partial pending index.
 */
final class OutboxJdbc {

  /** The columns a claim returns, in the order {@link #claimed} reads them. */
  private static final String CLAIMED =
      "id, message_id, transport, destination, message_type, headers, body, ordering_key, lane,"
          + " tenant_id, attempts, created_at, last_error";

  private static final String ELIGIBLE = eligible("");

  private static final String PAGE = "lane IS NULL AND id > ? AND id <= ? AND created_at <= ?";

  private final StoreJdbc jdbc;
  private final String table;
  private final String claimByIds;
  private final String claimPage;
  private final String lockPage;
  private final String deleteFenced;
  private final String deleteLocked;

  OutboxJdbc(StoreJdbc jdbc) {
    this.jdbc = jdbc;
    this.table = jdbc.table(SchemaNames.OUTBOX);
    this.claimByIds = stamping("id = ANY(?) AND lane IS NULL");
    this.claimPage = stamping(PAGE);
    this.lockPage =
        "SELECT "
            + CLAIMED
            + " FROM "
            + table
            + " WHERE "
            + PAGE
            + " AND "
            + ELIGIBLE
            + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED";
    this.deleteFenced = "DELETE FROM " + table + " WHERE id = ANY(?) AND claim_token = ?";
    this.deleteLocked = "DELETE FROM " + table + " WHERE id = ANY(?)";
  }

  /**
   * Pending, due and not under a live claim or retry hold at the two parameters (both {@code now});
   * columns qualified with {@code alias} unless it is empty.
   */
  static String eligible(String alias) {
    String q = alias.isEmpty() ? "" : alias + ".";
    return q
        + "status = 'pending' AND ("
        + q
        + "deliver_at IS NULL OR "
        + q
        + "deliver_at <= ?) AND ("
        + q
        + "claim_expires_at IS NULL OR "
        + q
        + "claim_expires_at <= ?)";
  }

  /**
   * Locks up to {@code LIMIT} eligible rows matching {@code which} in id order, skipping rows
   * another transaction holds, stamps them with token, expiry and one more attempt and returns
   * them. Parameters: those of {@code which}, the two instants of the eligibility test, the limit,
   * the token and the expiry.
   */
  private String stamping(String which) {
    return "WITH claimable AS (SELECT id FROM "
        + table
        + " WHERE "
        + which
        + " AND "
        + ELIGIBLE
        + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED) "
        + stamp(table, "claimable");
  }

  /**
   * The claim's UPDATE of {@code table}: stamps the rows whose ids the CTE {@code claimable}
   * (column {@code id}) selected with the token and expiry (the two parameters) and one more
   * attempt, and returns {@link #CLAIMED}.
   */
  static String stamp(String table, String claimable) {
    return "UPDATE "
        + table
        + " AS o SET claim_token = ?, claim_expires_at = ?, attempts = o.attempts + 1 FROM "
        + claimable
        + " WHERE o.id = "
        + claimable
        + ".id RETURNING o."
        + CLAIMED.replace(", ", ", o.");
  }

  /** Most lock calls one statement carries (PostgreSQL allows 1664 select-list entries). */
  private static final int LOCKS_PER_STATEMENT = 500;

  /**
   * Takes a transaction-scoped advisory lock on ({@code namespace}, key hash) for every ordering
   * key of {@code messages}: one lock per hash, taken in ascending order (PostgreSQL evaluates a
   * select list left to right) so that two writers never deadlock, a few hundred per round trip.
   * Writers of one key then commit in id order.
   */
  void lockKeys(DSLContext dsl, int namespace, List<NewMessage> messages) {
    TreeSet<Integer> hashes = new TreeSet<>();
    for (NewMessage message : messages) {
      if (message.ordered()) {
        hashes.add(Lanes.stableHash(message.orderingKey()));
      }
    }
    List<Integer> all = new ArrayList<>(hashes);
    for (int from = 0; from < all.size(); from += LOCKS_PER_STATEMENT) {
      List<Integer> some = all.subList(from, Math.min(all.size(), from + LOCKS_PER_STATEMENT));
      StringBuilder sql = new StringBuilder("SELECT ");
      List<Object> values = new ArrayList<>(2 * some.size());
      for (int hash : some) {
        sql.append(values.isEmpty() ? "" : ", ").append("pg_advisory_xact_lock(?, ?)");
        values.add(namespace);
        values.add(hash);
      }
      jdbc.run(
          dsl,
          sql.toString(),
          statement -> {
            Params.of(statement).set(values.toArray());
            statement.executeQuery().close();
            return null;
          });
    }
  }

  /**
   * Inserts the messages in one statement; returns their ids in input order. The optional columns
   * (ordering key and lane, schedule, tenant) are written only when some message of the batch has a
   * value for them: the columns' defaults are null, and a shorter statement is cheaper to build and
   * bind.
   */
  List<Long> insert(DSLContext dsl, List<NewMessage> messages, int laneCount) {
    boolean ordered = false;
    boolean scheduled = false;
    boolean tenants = false;
    for (NewMessage m : messages) {
      ordered |= m.ordered();
      scheduled |= m.deliverAt() != null;
      tenants |= m.tenantId() != null;
    }
    StringBuilder columns =
        new StringBuilder("message_id, transport, destination, message_type, headers, body");
    StringBuilder row = new StringBuilder("(?, ?, ?, ?, CAST(? AS jsonb), ?");
    if (ordered) {
      columns.append(", ordering_key, lane");
      row.append(", ?, ?");
    }
    if (scheduled) {
      columns.append(", deliver_at");
      row.append(", ?");
    }
    if (tenants) {
      columns.append(", tenant_id");
      row.append(", ?");
    }
    row.append(')');
    StringBuilder sql =
        new StringBuilder(64 + columns.length() + messages.size() * (row.length() + 2))
            .append("INSERT INTO ")
            .append(table)
            .append(" (")
            .append(columns)
            .append(") VALUES ");
    for (int i = 0; i < messages.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append(row);
    }
    sql.append(" RETURNING id");
    boolean withLanes = ordered;
    boolean withSchedule = scheduled;
    boolean withTenants = tenants;
    return jdbc.run(
        dsl,
        sql.toString(),
        statement -> {
          int p = 1;
          for (NewMessage m : messages) {
            statement.setObject(p++, m.messageId());
            statement.setString(p++, m.transport());
            statement.setString(p++, m.destination());
            statement.setString(p++, m.messageType());
            statement.setString(p++, HeadersJson.text(m.headers()));
            statement.setBytes(p++, m.body());
            if (withLanes) {
              statement.setString(p++, m.orderingKey());
              statement.setObject(
                  p++,
                  m.ordered() ? Lanes.laneOf(m.orderingKey(), laneCount) : null,
                  Types.INTEGER);
            }
            if (withSchedule) {
              statement.setObject(
                  p++, OutboxQueries.utc(m.deliverAt()), Types.TIMESTAMP_WITH_TIMEZONE);
            }
            if (withTenants) {
              statement.setString(p++, m.tenantId());
            }
          }
          List<Long> ids = new ArrayList<>(messages.size());
          try (ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
              ids.add(rows.getLong(1));
            }
          }
          // Identity values are drawn in VALUES order, so ascending ids are the input order.
          ids.sort(Comparator.naturalOrder());
          return ids;
        });
  }

  Claim claimByIds(DSLContext dsl, ClaimByIds request) {
    UUID token = UUID.randomUUID();
    Instant expiresAt = request.now().plus(request.claimDuration());
    OffsetDateTime now = OutboxQueries.utc(request.now());
    List<ClaimedMessage> claimed =
        jdbc.run(
            dsl,
            claimByIds,
            statement -> {
              statement.setArray(1, StoreJdbc.ids(statement, request.ids()));
              int p = eligibleAndLimit(statement, 2, now, request.ids().size());
              bindStamp(statement, p, token, expiresAt);
              return claimed(statement, 0);
            });
    return new Claim(token, expiresAt, claimed);
  }

  Claim claimPage(DSLContext dsl, ClaimPage request) {
    UUID token = UUID.randomUUID();
    Instant expiresAt = request.now().plus(request.claimDuration());
    OffsetDateTime now = OutboxQueries.utc(request.now());
    List<ClaimedMessage> claimed =
        jdbc.run(
            dsl,
            claimPage,
            statement -> {
              int p = page(statement, request);
              p = eligibleAndLimit(statement, p, now, request.limit());
              bindStamp(statement, p, token, expiresAt);
              return claimed(statement, 0);
            });
    return new Claim(token, expiresAt, claimed);
  }

  /**
   * The rows {@link #claimPage} would claim, locked and returned with one more attempt; nothing is
   * written.
   */
  Claim lockPage(DSLContext dsl, ClaimPage request) {
    OffsetDateTime now = OutboxQueries.utc(request.now());
    List<ClaimedMessage> locked =
        jdbc.run(
            dsl,
            lockPage,
            statement -> {
              int p = page(statement, request);
              eligibleAndLimit(statement, p, now, request.limit());
              return claimed(statement, 1);
            });
    return new Claim(UUID.randomUUID(), request.now().plus(request.claimDuration()), locked, true);
  }

  int deleteFenced(DSLContext dsl, UUID token, Collection<Long> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return jdbc.run(
        dsl,
        deleteFenced,
        statement -> {
          statement.setArray(1, StoreJdbc.ids(statement, ids));
          statement.setObject(2, token);
          return statement.executeUpdate();
        });
  }

  int deleteLocked(DSLContext dsl, Collection<Long> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return jdbc.run(
        dsl,
        deleteLocked,
        statement -> {
          statement.setArray(1, StoreJdbc.ids(statement, ids));
          return statement.executeUpdate();
        });
  }

  private static int page(PreparedStatement statement, ClaimPage request) throws SQLException {
    statement.setLong(1, request.afterId());
    statement.setLong(2, request.upToId());
    statement.setObject(3, OutboxQueries.utc(request.createdBefore()));
    return 4;
  }

  private static int eligibleAndLimit(
      PreparedStatement statement, int p, OffsetDateTime now, int limit) throws SQLException {
    statement.setObject(p, now);
    statement.setObject(p + 1, now);
    statement.setInt(p + 2, limit);
    return p + 3;
  }

  private static void bindStamp(PreparedStatement statement, int p, UUID token, Instant expiresAt)
      throws SQLException {
    statement.setObject(p, token);
    statement.setObject(p + 1, OutboxQueries.utc(expiresAt));
  }

  /** Runs the statement and reads {@link #CLAIMED}, adding {@code extraAttempts}, in id order. */
  static List<ClaimedMessage> claimed(PreparedStatement statement, int extraAttempts)
      throws SQLException {
    List<ClaimedMessage> claimed = new ArrayList<>();
    try (ResultSet r = statement.executeQuery()) {
      while (r.next()) {
        claimed.add(
            new ClaimedMessage(
                r.getLong(1),
                r.getObject(2, UUID.class),
                r.getString(3),
                r.getString(4),
                r.getString(5),
                HeadersJson.read(JSONB.valueOf(r.getString(6))),
                r.getBytes(7),
                r.getString(8),
                r.getObject(9, Integer.class),
                r.getString(10),
                r.getInt(11) + extraAttempts,
                r.getObject(12, OffsetDateTime.class).toInstant(),
                r.getString(13)));
      }
    }
    claimed.sort(Comparator.comparingLong(ClaimedMessage::id));
    return claimed;
  }
}
