package dev.relayer.store;

import dev.relayer.schema.SchemaNames;
import java.sql.Array;
import java.sql.Connection;
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
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.JSONB;

/**
 * The statements every message goes through — the enqueue insert, the claim by ids, the sweeper's
 * page lock and the completing deletes — as SQL text written once per store and run over JDBC on
 * the caller's connection ({@link DSLContext#connectionResult}), so in the caller's transaction.
 *
 * <p>jOOQ builds, renders and binds a statement on every call; for these statements that was most
 * of the CPU Relayer spent per message (see {@code docs/benchmarks.md}). Constant text also lets
 * the driver keep each statement prepared on the server, and the literal {@code status = 'pending'}
 * lets a reused plan use the partial pending index. The predicates are those of {@link
 * OutboxQueries}; a missing table or column fails as it does there, with a {@link
 * dev.relayer.api.SchemaMismatchException}. The caller's jOOQ execute listeners do not see these
 * statements.
 */
final class OutboxJdbc {

  /** The columns a claim returns, in {@link #claimed} order. */
  private static final String CLAIMED =
      "id, message_id, transport, destination, message_type, headers, body, ordering_key, lane,"
          + " tenant_id, attempts, created_at, last_error";

  private static final String ELIGIBLE =
      "status = 'pending' AND (deliver_at IS NULL OR deliver_at <= ?)"
          + " AND (claim_expires_at IS NULL OR claim_expires_at <= ?)";

  private static final String PAGE = "lane IS NULL AND id > ? AND id <= ? AND created_at <= ?";

  private final StoreDsl mapping;
  private final String table;
  private final String claimByIds;
  private final String claimPage;
  private final String lockPage;
  private final String deleteFenced;
  private final String deleteLocked;

  OutboxJdbc(StoreDsl mapping) {
    this.mapping = mapping;
    this.table = mapping.names().qualified(SchemaNames.OUTBOX);
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
        + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED) UPDATE "
        + table
        + " AS o SET claim_token = ?, claim_expires_at = ?, attempts = o.attempts + 1"
        + " FROM claimable WHERE o.id = claimable.id RETURNING o."
        + CLAIMED.replace(", ", ", o.");
  }

  /** {@link OutboxQueries#insert}, with the same choice of optional columns. */
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
    return run(
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
        run(
            dsl,
            claimByIds,
            statement -> {
              statement.setArray(1, ids(statement.getConnection(), request.ids()));
              int p = eligibleAndLimit(statement, 2, now, request.ids().size());
              stamp(statement, p, token, expiresAt);
              return claimed(statement, 0);
            });
    return new Claim(token, expiresAt, claimed);
  }

  Claim claimPage(DSLContext dsl, ClaimPage request) {
    UUID token = UUID.randomUUID();
    Instant expiresAt = request.now().plus(request.claimDuration());
    OffsetDateTime now = OutboxQueries.utc(request.now());
    List<ClaimedMessage> claimed =
        run(
            dsl,
            claimPage,
            statement -> {
              int p = page(statement, request);
              p = eligibleAndLimit(statement, p, now, request.limit());
              stamp(statement, p, token, expiresAt);
              return claimed(statement, 0);
            });
    return new Claim(token, expiresAt, claimed);
  }

  /** {@link OutboxQueries#lockPage}: the page's rows locked, with one more attempt, unwritten. */
  Claim lockPage(DSLContext dsl, ClaimPage request) {
    OffsetDateTime now = OutboxQueries.utc(request.now());
    List<ClaimedMessage> locked =
        run(
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
    return run(
        dsl,
        deleteFenced,
        statement -> {
          statement.setArray(1, ids(statement.getConnection(), ids));
          statement.setObject(2, token);
          return statement.executeUpdate();
        });
  }

  int deleteLocked(DSLContext dsl, Collection<Long> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return run(
        dsl,
        deleteLocked,
        statement -> {
          statement.setArray(1, ids(statement.getConnection(), ids));
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

  private static void stamp(PreparedStatement statement, int p, UUID token, Instant expiresAt)
      throws SQLException {
    statement.setObject(p, token);
    statement.setObject(p + 1, OutboxQueries.utc(expiresAt));
  }

  private static Array ids(Connection connection, Collection<Long> ids) throws SQLException {
    return connection.createArrayOf("int8", ids.toArray(Long[]::new));
  }

  /** Runs the statement and reads {@link #CLAIMED}, adding {@code extraAttempts}, in id order. */
  private static List<ClaimedMessage> claimed(PreparedStatement statement, int extraAttempts)
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

  /** What a statement does once its parameters can be set. */
  @FunctionalInterface
  private interface Execution<T> {
    T execute(PreparedStatement statement) throws SQLException;
  }

  private <T> T run(DSLContext dsl, String sql, Execution<T> execution) {
    return dsl.connectionResult(
        connection -> {
          try (PreparedStatement statement = connection.prepareStatement(sql)) {
            return execution.execute(statement);
          } catch (SQLException e) {
            throw mapping.translate(sql, e);
          }
        });
  }
}
