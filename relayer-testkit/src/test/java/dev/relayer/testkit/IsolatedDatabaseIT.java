package dev.relayer.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class IsolatedDatabaseIT {

  @Test
  void createsAnIsolatedDatabaseAndDropsItOnClose() throws SQLException {
    String name;
    try (TestDatabase db = TestDatabase.create();
        Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      name = db.name();
      statement.execute("CREATE TABLE t (x int)");
      try (ResultSet rs = statement.executeQuery("SELECT current_database()")) {
        rs.next();
        assertThat(rs.getString(1)).isEqualTo(name);
      }
    }
    try (Connection admin = TestPostgres.server().connectAdmin();
        Statement statement = admin.createStatement();
        ResultSet rs =
            statement.executeQuery(
                "SELECT count(*) FROM pg_database WHERE datname = '" + name + "'")) {
      rs.next();
      assertThat(rs.getInt(1)).isZero();
    }
  }
}
