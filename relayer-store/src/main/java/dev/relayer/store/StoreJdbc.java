package dev.relayer.store;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import org.jooq.DSLContext;

/**
 * Runs SQL text over JDBC on the caller's connection, taken from the caller's {@link DSLContext}
 * ({@link DSLContext#connectionResult}), so in the caller's transaction; a failure is translated as
 * jOOQ's path translates it ({@link StoreDsl#translate}).
 *
 * <p>The statements every message or every pass runs are written this way (see {@link OutboxJdbc},
 * {@link OutboxLaneQueries}, {@link LeaseQueries}): jOOQ builds, renders and binds a statement on
 * every call, which measured as most of the CPU those paths spent (see {@code docs/benchmarks.md}),
 * while constant text is built once per store and lets the driver keep the statement prepared on
 * the server. The caller's jOOQ execute listeners do not see these statements.
 */
final class StoreJdbc {

  private final StoreDsl mapping;

  StoreJdbc(StoreDsl mapping) {
    this.mapping = mapping;
  }

  /** The quoted, qualified name of one of the store's tables. */
  String table(String base) {
    return mapping.names().qualified(base);
  }

  /** What a statement does once it is prepared: set its parameters, run it, read the outcome. */
  @FunctionalInterface
  interface Execution<T> {
    T execute(PreparedStatement statement) throws SQLException;
  }

  <T> T run(DSLContext dsl, String sql, Execution<T> execution) {
    return dsl.connectionResult(
        connection -> {
          try (PreparedStatement statement = connection.prepareStatement(sql)) {
            return execution.execute(statement);
          } catch (SQLException e) {
            throw mapping.translate(sql, e);
          }
        });
  }

  /** Runs a statement without parameters or results. */
  void execute(DSLContext dsl, String sql) {
    dsl.connection(
        connection -> {
          try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
          } catch (SQLException e) {
            throw mapping.translate(sql, e);
          }
        });
  }

  /** Runs a statement whose parameters {@code values} are, in order; returns its update count. */
  int update(DSLContext dsl, String sql, Object... values) {
    return run(
        dsl,
        sql,
        statement -> {
          Params.of(statement).set(values);
          return statement.executeUpdate();
        });
  }

  /** A {@code bigint[]} parameter. */
  static Array ids(PreparedStatement statement, Collection<Long> ids) throws SQLException {
    return statement.getConnection().createArrayOf("int8", ids.toArray(Long[]::new));
  }

  /** Sets a statement's parameters in the order they appear in its text. */
  static final class Params {
    private final PreparedStatement statement;
    private int next = 1;

    private Params(PreparedStatement statement) {
      this.statement = statement;
    }

    static Params of(PreparedStatement statement) {
      return new Params(statement);
    }

    /** The next parameters; {@link java.time.OffsetDateTime}, UUID, numbers, strings, arrays. */
    Params set(Object... values) throws SQLException {
      for (Object value : values) {
        if (value instanceof Array array) {
          statement.setArray(next++, array);
        } else {
          statement.setObject(next++, value);
        }
      }
      return this;
    }

    /** The next parameter, a {@code bigint[]} of {@code ids}. */
    Params ids(Collection<Long> ids) throws SQLException {
      return set(StoreJdbc.ids(statement, ids));
    }
  }
}
