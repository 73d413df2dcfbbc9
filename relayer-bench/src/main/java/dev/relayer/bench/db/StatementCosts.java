package dev.relayer.bench.db;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the server spent on each statement of one database between a {@link #reset} and a {@link
 * #read}, from {@code pg_stat_statements}: calls, rows, shared buffer accesses (hits and reads) and
 * execution time. The server updates the counters as each statement's execution ends, so a read
 * after the measured system has stopped sees all of its statements.
 *
 * <p>The harness's cluster preloads the module with {@code pg_stat_statements.track = none} (so
 * that no other scenario pays for it); {@link #enable} turns tracking on for one scenario's
 * database and must run before that database's pools connect.
 */
public final class StatementCosts {

  private StatementCosts() {}

  /**
   * One statement's totals.
   *
   * @param query the normalised text, whitespace collapsed
   * @param calls executions
   * @param blocks shared buffer hits plus reads
   * @param reads shared buffer reads (pages from outside PostgreSQL's buffers)
   * @param millis execution time
   */
  public record Cost(String query, long calls, long blocks, long reads, double millis) {

    Cost plus(Cost other) {
      return new Cost(
          query,
          calls + other.calls,
          blocks + other.blocks,
          reads + other.reads,
          millis + other.millis);
    }
  }

  /**
   * Creates the extension in {@code database} and tracks its top-level statements from its next
   * connection on; returns the reason when it cannot (the module not preloaded, as on a server
   * given with {@code --external}, or the role may not).
   */
  public static Optional<String> enable(ScenarioDatabase database) {
    try {
      database.execute(
          "CREATE EXTENSION IF NOT EXISTS pg_stat_statements",
          "ALTER DATABASE " + database.name() + " SET pg_stat_statements.track = 'top'");
      database.queryLong("SELECT count(*) FROM pg_stat_statements");
      return Optional.empty();
    } catch (SQLException e) {
      return Optional.of(e.getMessage());
    }
  }

  /** Forgets every statement's totals (the whole server's). */
  public static void reset(ScenarioDatabase database) throws SQLException {
    database.execute("SELECT pg_stat_statements_reset()");
  }

  /** The totals of {@code database}'s statements since the last reset, most blocks first. */
  public static List<Cost> read(ScenarioDatabase database) throws SQLException {
    List<Cost> costs = new ArrayList<>();
    database.forEachRow(
        "SELECT query, calls, shared_blks_hit + shared_blks_read, shared_blks_read,"
            + " total_exec_time FROM pg_stat_statements"
            + " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
            + " AND query NOT LIKE '%pg_stat_statements%'",
        rs ->
            costs.add(
                new Cost(
                    rs.getString(1).replaceAll("\\s+", " ").trim(),
                    rs.getLong(2),
                    rs.getLong(3),
                    rs.getLong(4),
                    rs.getDouble(5))));
    costs.sort(Comparator.comparingLong(Cost::blocks).reversed());
    return costs;
  }

  /** {@code first} and {@code second} added up statement by statement, most blocks first. */
  public static List<Cost> plus(List<Cost> first, List<Cost> second) {
    Map<String, Cost> byQuery = new LinkedHashMap<>();
    for (Cost cost : first) {
      byQuery.merge(cost.query(), cost, Cost::plus);
    }
    for (Cost cost : second) {
      byQuery.merge(cost.query(), cost, Cost::plus);
    }
    List<Cost> sum = new ArrayList<>(byQuery.values());
    sum.sort(Comparator.comparingLong(Cost::blocks).reversed());
    return sum;
  }

  /**
   * The B-tree levels above the leaves of each index of Relayer's outbox, by name, from {@code
   * pageinspect}'s {@code bt_metap} (reads one page per index); empty when the extension cannot be
   * created.
   */
  public static Map<String, Integer> outboxIndexLevels(ScenarioDatabase database) {
    Map<String, Integer> levels = new LinkedHashMap<>();
    try {
      database.execute("CREATE EXTENSION IF NOT EXISTS pageinspect");
      database.forEachRow(
          "SELECT c.relname, (bt_metap(c.relname::text)).level FROM pg_index i"
              + " JOIN pg_class c ON c.oid = i.indexrelid"
              + " JOIN pg_am a ON a.oid = c.relam AND a.amname = 'btree'"
              + " WHERE i.indrelid = '"
              + OutboxRows.TABLE
              + "'::regclass ORDER BY c.relname",
          rs -> levels.put(rs.getString(1), rs.getInt(2)));
    } catch (SQLException e) {
      return Map.of();
    }
    return levels;
  }
}
