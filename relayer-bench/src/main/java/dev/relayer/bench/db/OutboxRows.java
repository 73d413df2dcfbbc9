package dev.relayer.bench.db;

import dev.relayer.bench.Payload;
import dev.relayer.store.Lanes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Bulk-loads pending unordered rows into Relayer's outbox table ({@code public.relayer_outbox}),
 * each with the benchmark {@link Payload}, for the burn-down scenarios. Rows are inserted by the
 * server ({@code generate_series}) in chunks, then {@linkplain ScenarioDatabase#settle settled}.
 */
public final class OutboxRows {

  /** The outbox table of the default schema options. */
  public static final String TABLE = "relayer_outbox";

  private static final int CHUNK = 50_000;

  private OutboxRows() {}

  /** Binds the shared message (transport, destination, type, headers, body) as parameters 1–5. */
  private static void bindPayload(PreparedStatement insert) throws SQLException {
    insert.setString(1, Payload.TRANSPORT);
    insert.setString(2, Payload.DESTINATION);
    insert.setString(3, Payload.MESSAGE_TYPE);
    insert.setString(4, Payload.headersJson());
    insert.setBytes(5, Payload.body());
  }

  /** Inserts {@code rows} pending rows, eligible now, and settles the table. */
  public static void insertPending(ScenarioDatabase database, long rows) throws SQLException {
    insertPending(database, rows, 1);
  }

  /**
   * {@link #insertPending(ScenarioDatabase, long)} with the share {@code sampled} of the rows,
   * drawn at random, carrying a sampled {@code traceparent} and the rest an unsampled one ({@link
   * Payload#unsampledHeadersJson()}), as rows written under a tracer that samples that share; with
   * {@code sampled} 1 every row carries {@link Payload#headersJson()}.
   */
  public static void insertPending(ScenarioDatabase database, long rows, double sampled)
      throws SQLException {
    try (Connection c = database.connect();
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO "
                    + TABLE
                    + " (message_id, transport, destination, message_type, headers, body)"
                    + " SELECT gen_random_uuid(), ?, ?, ?,"
                    + " CASE WHEN random() < ? THEN ?::jsonb ELSE ?::jsonb END, ?"
                    + " FROM generate_series(1, ?)")) {
      insert.setString(1, Payload.TRANSPORT);
      insert.setString(2, Payload.DESTINATION);
      insert.setString(3, Payload.MESSAGE_TYPE);
      insert.setDouble(4, sampled);
      insert.setString(5, Payload.headersJson());
      insert.setString(6, Payload.unsampledHeadersJson());
      insert.setBytes(7, Payload.body());
      for (long done = 0; done < rows; done += CHUNK) {
        insert.setLong(8, Math.min(CHUNK, rows - done));
        insert.executeUpdate();
      }
    }
    database.settle(TABLE);
  }

  /**
   * Inserts {@code rows} pending ordered rows spread round-robin over {@code keys} ordering keys
   * ({@code key-0} …), each in its lane for {@code laneCount} lanes, so that each key's rows are in
   * id order; settles the table.
   */
  public static void insertOrdered(ScenarioDatabase database, long rows, int keys, int laneCount)
      throws SQLException {
    String[] names = new String[keys];
    Integer[] lanes = new Integer[keys];
    for (int k = 0; k < keys; k++) {
      names[k] = "key-" + k;
      lanes[k] = Lanes.laneOf(names[k], laneCount);
    }
    try (Connection c = database.connect();
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO "
                    + TABLE
                    + " (message_id, transport, destination, message_type, headers, body,"
                    + " ordering_key, lane)"
                    + " SELECT gen_random_uuid(), ?, ?, ?, ?::jsonb, ?,"
                    + " (?::text[])[1 + g % ?], (?::int[])[1 + g % ?]"
                    + " FROM generate_series(?, ?) AS g ORDER BY g")) {
      bindPayload(insert);
      insert.setArray(6, c.createArrayOf("text", names));
      insert.setInt(7, keys);
      insert.setArray(8, c.createArrayOf("integer", lanes));
      insert.setInt(9, keys);
      for (long done = 0; done < rows; done += CHUNK) {
        insert.setLong(10, done);
        insert.setLong(11, Math.min(done + CHUNK, rows) - 1);
        insert.executeUpdate();
      }
    }
    database.settle(TABLE);
  }

  /** The most rows {@link #insertInTransaction} writes at once. */
  public static final int MAX_ROWS_IN_TRANSACTION = 10;

  /** The hand-written insert of {@code n} rows at index {@code n}. */
  private static final String[] INSERT_ROWS = insertStatements();

  private static String[] insertStatements() {
    String[] sql = new String[MAX_ROWS_IN_TRANSACTION + 1];
    for (int n = 1; n <= MAX_ROWS_IN_TRANSACTION; n++) {
      sql[n] =
          "INSERT INTO "
              + TABLE
              + " (message_id, transport, destination, message_type, headers, body) VALUES "
              + String.join(", ", Collections.nCopies(n, "(?, ?, ?, ?, CAST(? AS jsonb), ?)"))
              + " RETURNING id";
    }
    return sql;
  }

  /**
   * Inserts {@code rows} (1 to {@link #MAX_ROWS_IN_TRANSACTION}) unordered rows of the benchmark
   * message in one transaction on a connection of {@code pool}, the way a hand-tuned JDBC client
   * would: auto-commit off, one prepared multi-row {@code INSERT … RETURNING id} with the message
   * ids bound by the client, {@code COMMIT}. The Java client's own floor beside Relayer's enqueue.
   */
  public static void insertInTransaction(DataSource pool, int rows) throws SQLException {
    if (rows < 1 || rows > MAX_ROWS_IN_TRANSACTION) {
      throw new IllegalArgumentException(
          "rows must be 1 to " + MAX_ROWS_IN_TRANSACTION + ", was " + rows);
    }
    try (Connection connection = pool.getConnection()) {
      connection.setAutoCommit(false);
      try (PreparedStatement insert = connection.prepareStatement(INSERT_ROWS[rows])) {
        int p = 1;
        for (int i = 0; i < rows; i++) {
          insert.setObject(p++, UUID.randomUUID());
          insert.setString(p++, Payload.TRANSPORT);
          insert.setString(p++, Payload.DESTINATION);
          insert.setString(p++, Payload.MESSAGE_TYPE);
          insert.setString(p++, Payload.headersJson());
          insert.setBytes(p++, Payload.body());
        }
        try (ResultSet ids = insert.executeQuery()) {
          while (ids.next()) {
            ids.getLong(1);
          }
        }
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(true);
      }
    }
  }

  /** Number of rows in the outbox table. */
  public static long count(ScenarioDatabase database) throws SQLException {
    return database.queryLong("SELECT count(*) FROM " + TABLE);
  }
}
