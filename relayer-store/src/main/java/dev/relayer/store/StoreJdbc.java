package dev.relayer.store;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Renders statements once for this store ({@link RenderedStatement}) and runs them over JDBC on the
 * caller's connection, taken from the caller's {@link DSLContext} ({@link
 * DSLContext#connectionResult}), so in the caller's transaction. A failure is translated as jOOQ's
 * path translates it ({@link StoreDsl#translate}).
 *
 * <p>The statements every message or every pass runs go this way (see {@link OutboxJdbc}, {@link
 * OutboxLaneQueries}, {@link LeaseQueries}): they are written as typed jOOQ DSL like every other
 * statement, but jOOQ builds, renders and binds a query on every execution, which measured as most
 * of the CPU those paths spent (see {@code docs/benchmarks.md}). Rendered once, a statement's text
 * is also the same on every run, so the driver keeps it prepared on the server. The caller's jOOQ
 * execute listeners do not see these statements.
 */
final class StoreJdbc {

  private final StoreDsl mapping;
  private final DSLContext renderer;

  StoreJdbc(StoreDsl mapping) {
    this.mapping = mapping;
    this.renderer = mapping.map(DSL.using(SQLDialect.POSTGRES));
  }

  /** {@code query} rendered for this store's schema and prefix. */
  RenderedStatement render(Query query) {
    return RenderedStatement.of(renderer, query);
  }

  /** What a statement does once it is prepared and bound: run, read the outcome. */
  @FunctionalInterface
  interface Execution<T> {
    T execute(PreparedStatement statement) throws SQLException;
  }

  /** Prepares {@code statement} on the caller's connection, binds {@code values}, runs it. */
  <T> T run(
      DSLContext dsl, RenderedStatement statement, Map<String, ?> values, Execution<T> execution) {
    String sql = statement.sql();
    return dsl.connectionResult(
        connection -> {
          try (PreparedStatement prepared = connection.prepareStatement(sql)) {
            statement.bind(prepared, values);
            return execution.execute(prepared);
          } catch (SQLException e) {
            throw mapping.translate(sql, e);
          }
        });
  }

  /** Runs a statement that returns no rows; returns its update count. */
  int update(DSLContext dsl, RenderedStatement statement, Map<String, ?> values) {
    return run(dsl, statement, values, PreparedStatement::executeUpdate);
  }

  /** Runs a query for its effects only (for example a {@code SELECT} of function calls). */
  void call(DSLContext dsl, RenderedStatement statement, Map<String, ?> values) {
    run(
        dsl,
        statement,
        values,
        prepared -> {
          prepared.executeQuery().close();
          return null;
        });
  }
}
