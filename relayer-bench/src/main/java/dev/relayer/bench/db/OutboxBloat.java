package dev.relayer.bench.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Dead tuples of Relayer's outbox table and its indexes at one instant: the table's {@code
 * n_dead_tup} from {@code pg_stat_user_tables} (an estimate the server updates within about a
 * second of each writing transaction's end), and per index its size and — where the {@code
 * pgstattuple} extension can be created — the entries it holds and how many of them are marked
 * dead. An index entry is only marked dead once its row version is dead to every snapshot, so under
 * a held horizon the entries that point at dead rows show as a growing entry count (beside a
 * constant live row count), not as dead entries.
 *
 * @param liveTuples the table's {@code n_live_tup}
 * @param deadTuples the table's {@code n_dead_tup}
 * @param indexes one per index of the table, by name
 */
public record OutboxBloat(long liveTuples, long deadTuples, List<Index> indexes) {

  /**
   * One index.
   *
   * @param name the index's name
   * @param bytes {@code pg_relation_size}
   * @param entries {@code pgstattuple}'s {@code tuple_count}; empty without the extension
   * @param deadEntries {@code pgstattuple}'s {@code dead_tuple_count}; empty without it
   */
  public record Index(
      String name, long bytes, Optional<Long> entries, Optional<Long> deadEntries) {}

  /**
   * Creates {@code pgstattuple} in {@code database} if it can; returns the reason when it cannot
   * (the package that ships it, {@code postgresql-contrib}, is missing, or the role may not).
   */
  public static Optional<String> enablePgstattuple(ScenarioDatabase database) {
    try {
      database.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple");
      return Optional.empty();
    } catch (SQLException e) {
      return Optional.of(e.getMessage());
    }
  }

  /**
   * {@code age(backend_xmin)} of backend {@code pid}: transaction ids assigned since its snapshot,
   * from {@code pg_stat_activity}.
   */
  public static long xminAge(ScenarioDatabase database, int pid) throws SQLException {
    try (Connection c = database.connect();
        PreparedStatement s =
            c.prepareStatement("SELECT age(backend_xmin) FROM pg_stat_activity WHERE pid = ?")) {
      s.setInt(1, pid);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("backend " + pid + " holding the snapshot is gone");
        }
        return rs.getLong(1);
      }
    }
  }

  /** Reads the figures; index entries only when {@code withPgstattuple}. */
  public static OutboxBloat sample(ScenarioDatabase database, boolean withPgstattuple)
      throws SQLException {
    try (Connection c = database.connect();
        Statement s = c.createStatement()) {
      long live;
      long dead;
      try (ResultSet rs =
          s.executeQuery(
              "SELECT n_live_tup, n_dead_tup FROM pg_stat_user_tables WHERE relid = '"
                  + OutboxRows.TABLE
                  + "'::regclass")) {
        rs.next();
        live = rs.getLong(1);
        dead = rs.getLong(2);
      }
      List<Index> indexes = new ArrayList<>();
      String sql =
          withPgstattuple
              ? "SELECT c.relname, pg_relation_size(i.indexrelid), t.tuple_count,"
                  + " t.dead_tuple_count FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid,"
                  + " LATERAL pgstattuple(i.indexrelid) t WHERE i.indrelid = '"
                  + OutboxRows.TABLE
                  + "'::regclass ORDER BY c.relname"
              : "SELECT c.relname, pg_relation_size(i.indexrelid) FROM pg_index i"
                  + " JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = '"
                  + OutboxRows.TABLE
                  + "'::regclass ORDER BY c.relname";
      try (ResultSet rs = s.executeQuery(sql)) {
        while (rs.next()) {
          indexes.add(
              new Index(
                  rs.getString(1),
                  rs.getLong(2),
                  withPgstattuple ? Optional.of(rs.getLong(3)) : Optional.empty(),
                  withPgstattuple ? Optional.of(rs.getLong(4)) : Optional.empty()));
        }
      }
      return new OutboxBloat(live, dead, List.copyOf(indexes));
    }
  }
}
