package dev.relayer.it;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Plain JDBC for assertions: each call opens its own connection unless one is given. */
final class Jdbc {

  private Jdbc() {}

  /** Every row of {@code sql}, its columns joined by {@code " | "}; nulls shown as "null". */
  static List<String> rows(Connection connection, String sql, Object... params)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        statement.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = statement.executeQuery()) {
        int columns = rs.getMetaData().getColumnCount();
        List<String> rows = new ArrayList<>();
        while (rs.next()) {
          StringBuilder row = new StringBuilder();
          for (int c = 1; c <= columns; c++) {
            if (c > 1) {
              row.append(" | ");
            }
            row.append(rs.getString(c));
          }
          rows.add(row.toString());
        }
        return rows;
      }
    }
  }

  static List<String> rows(DataSource dataSource, String sql, Object... params)
      throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      return rows(connection, sql, params);
    }
  }

  /** The single number {@code sql} returns, such as a count. */
  static long number(DataSource dataSource, String sql, Object... params) throws SQLException {
    List<String> rows = rows(dataSource, sql, params);
    if (rows.size() != 1) {
      throw new IllegalStateException("expected one row from " + sql + " but got " + rows);
    }
    return Long.parseLong(rows.get(0));
  }

  /** Runs {@code sql} (one or more statements) in autocommit mode, as psql does by default. */
  static void execute(DataSource dataSource, String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        var statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
