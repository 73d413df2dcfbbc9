package dev.relayer.bench.relayer;

import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The ids of the rows waiting in the outbox after a bulk load: one connection inserted them, so
 * they are the contiguous range {@code first..last}.
 *
 * @param first lowest id
 * @param last highest id
 */
record IdRange(long first, long last) {

  static IdRange of(ScenarioDatabase database) throws SQLException {
    try (Connection c = database.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT min(id), max(id), count(*) FROM " + OutboxRows.TABLE)) {
      rs.next();
      IdRange range = new IdRange(rs.getLong(1), rs.getLong(2));
      if (range.size() != rs.getLong(3)) {
        throw new IllegalStateException(
            "outbox ids are not contiguous: " + range + " holds " + rs.getLong(3) + " rows");
      }
      return range;
    }
  }

  long size() {
    return last - first + 1;
  }
}
