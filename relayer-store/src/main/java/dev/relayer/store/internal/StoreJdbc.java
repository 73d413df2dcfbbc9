package dev.relayer.store.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.SQLDialect;
import org.jooq.SelectField;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * Renders statements once for this store ({@link RenderedStatement}) and runs them over JDBC on the
 * caller's connection, taken from the caller's {@link DSLContext} ({@link
 * DSLContext#connectionResult}), so in the caller's transaction. A failure is translated as jOOQ's
 * path translates it ({@link StoreDsl#translate}).
 *
 * <p>The statements every message or every pass runs go this way (the outbox's inserts and claims,
 * the lanes', the leases', the inbox's and retention's): they are written as typed jOOQ DSL like
 * every other statement, but jOOQ builds, renders and binds a query on every execution, which
 * measured as most of the CPU those paths spent. Rendered once, a statement's text is also the same
 * on every run, so the driver keeps it prepared on the server. The caller's jOOQ execute listeners
 * do not see these statements. Their variables are bound through the jOOQ parameters they were
 * written with ({@link Binds}), so a value of the wrong type does not compile and a variable left
 * without a value is refused by name before anything reaches the server.
 */
public final class StoreJdbc {

  private final StoreDsl mapping;
  private final DSLContext renderer;

  public StoreJdbc(StoreDsl mapping) {
    this.mapping = mapping;
    this.renderer = mapping.map(DSL.using(SQLDialect.POSTGRES));
  }

  /**
   * {@code caller} mapped to this store's schema and prefix, for a statement built per call with
   * jOOQ; see {@link StoreDsl#map}.
   */
  public DSLContext map(DSLContext caller) {
    return mapping.map(caller);
  }

  /** {@code query} rendered for this store's schema and prefix. */
  public RenderedStatement render(Query query) {
    return RenderedStatement.of(renderer, query);
  }

  /** What a statement does once it is prepared and bound: run, read the outcome. */
  @FunctionalInterface
  public interface Execution<T> {
    @Nullable T execute(PreparedStatement statement) throws SQLException;
  }

  /** Prepares {@code statement} on the caller's connection, binds {@code binds}, runs it. */
  public <T> T run(
      DSLContext dsl, RenderedStatement statement, Binds binds, Execution<T> execution) {
    String sql = statement.sql();
    return dsl.connectionResult(
        connection -> {
          try (PreparedStatement prepared = connection.prepareStatement(sql)) {
            statement.bind(prepared, binds);
            return execution.execute(prepared);
          } catch (SQLException e) {
            throw mapping.translate(sql, e);
          }
        });
  }

  /**
   * Runs {@code work} so that its statements commit or roll back together. In the caller's
   * transaction (a connection with auto-commit off) that is the caller's transaction, and {@code
   * work} gets {@code dsl}. On an auto-commit connection every statement would commit alone, so
   * {@code work} runs on that one connection, with auto-commit off until its own commit, or
   * rollback when it throws.
   */
  public <T> T atomically(DSLContext dsl, Function<DSLContext, T> work) {
    // Asked on a connection of its own, so that the caller's statements never wait for a second
    // connection while this one is held (a one-connection pool must work).
    if (!dsl.connectionResult(Connection::getAutoCommit)) {
      return work.apply(dsl);
    }
    return dsl.connectionResult(
        connection -> {
          connection.setAutoCommit(false);
          try {
            T result = work.apply(DSL.using(dsl.configuration().derive(connection)));
            connection.commit();
            return result;
          } catch (SQLException | RuntimeException | Error e) {
            try {
              connection.rollback();
            } catch (SQLException rollback) {
              e.addSuppressed(rollback);
            }
            if (e instanceof SQLException commit) {
              throw mapping.translate("COMMIT", commit);
            }
            throw e;
          } finally {
            connection.setAutoCommit(true);
          }
        });
  }

  /** Reads one row of a result. */
  @FunctionalInterface
  public interface Row<T> {
    @Nullable T read(ResultSet row) throws SQLException;
  }

  /** Runs a query; returns every row, read by {@code row}. */
  public <T> List<T> list(DSLContext dsl, RenderedStatement statement, Binds binds, Row<T> row) {
    return run(
        dsl,
        statement,
        binds,
        prepared -> {
          try (ResultSet result = prepared.executeQuery()) {
            return rows(result, row);
          }
        });
  }

  /**
   * Runs a statement made of several ({@link RenderedStatement#then}) in one round trip; returns
   * every row of the last one's result, read by {@code row}.
   */
  public <T> List<T> listLast(
      DSLContext dsl, RenderedStatement statement, Binds binds, Row<T> row) {
    return run(
        dsl,
        statement,
        binds,
        prepared -> {
          prepared.execute();
          for (int i = 1; i < statement.statements(); i++) {
            prepared.getMoreResults();
          }
          try (ResultSet result = prepared.getResultSet()) {
            return rows(result, row);
          }
        });
  }

  private static <T> List<T> rows(ResultSet result, Row<T> row) throws SQLException {
    List<T> rows = new ArrayList<>();
    while (result.next()) {
      rows.add(row.read(result));
    }
    return rows;
  }

  /**
   * Runs a query; returns its first row, read by {@code row}, or empty when there is none or it
   * reads as {@code null}.
   */
  public <T> Optional<T> first(
      DSLContext dsl, RenderedStatement statement, Binds binds, Row<T> row) {
    return run(
        dsl,
        statement,
        binds,
        prepared -> {
          try (ResultSet result = prepared.executeQuery()) {
            return result.next() ? Optional.ofNullable(row.read(result)) : Optional.empty();
          }
        });
  }

  /** Runs a statement that returns no rows; returns its update count. */
  public int update(DSLContext dsl, RenderedStatement statement, Binds binds) {
    return run(dsl, statement, binds, PreparedStatement::executeUpdate);
  }

  /** Runs a query for its effects only (for example a {@code SELECT} of function calls). */
  public void call(DSLContext dsl, RenderedStatement statement, Binds binds) {
    run(
        dsl,
        statement,
        binds,
        prepared -> {
          prepared.executeQuery().close();
          return null;
        });
  }

  /** {@code SELECT function(first, arg0), function(first, arg1), …}; see {@link Calls}. */
  public <F, A> Calls<F, A> calls(String function, Class<F> firstType, Class<A> argType) {
    return new Calls<>(function, firstType, argType);
  }

  /**
   * One statement calling {@code function} once per argument, each call with the same first
   * argument, in order (PostgreSQL evaluates a select list left to right); rendered once per number
   * of calls, on first use.
   */
  public final class Calls<F, A> {
    private final String function;
    private final Param<F> first;
    private final Class<A> argType;
    private final Map<Integer, Rendered<A>> byCount = new ConcurrentHashMap<>();

    /** The statement of some number of calls, and the variables of their arguments in order. */
    private record Rendered<A>(RenderedStatement statement, List<Param<A>> args) {}

    private Calls(String function, Class<F> firstType, Class<A> argType) {
      this.function = function;
      this.first = DSL.param("first", firstType);
      this.argType = argType;
    }

    public void run(DSLContext dsl, F first, List<A> args) {
      if (args.isEmpty()) {
        return;
      }
      Binds binds = new Binds();
      put(binds, first, args);
      call(dsl, statement(args.size()), binds);
    }

    /** The statement of {@code count} calls, its variables {@code first}, {@code arg0}, …. */
    public RenderedStatement statement(int count) {
      return rendered(count).statement();
    }

    /** Sets the values of {@link #statement}'s variables for these arguments in {@code binds}. */
    public void put(Binds binds, F first, List<A> args) {
      binds.set(this.first, first);
      List<Param<A>> params = rendered(args.size()).args();
      for (int i = 0; i < args.size(); i++) {
        binds.set(params.get(i), args.get(i));
      }
    }

    private Rendered<A> rendered(int count) {
      return byCount.computeIfAbsent(count, this::render);
    }

    private Rendered<A> render(int count) {
      List<Param<A>> args = new ArrayList<>(count);
      List<SelectField<?>> calls = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        Param<A> arg = DSL.param("arg" + i, argType);
        args.add(arg);
        calls.add(DSL.function(function, SQLDataType.OTHER, first, arg));
      }
      return new Rendered<>(StoreJdbc.this.render(DSL.select(calls)), List.copyOf(args));
    }
  }
}
