package dev.relayer.store.internal;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.Param;
import org.jooq.Query;

/**
 * A statement written as typed jOOQ DSL over the generated tables, rendered once for a store's
 * schema and prefix, and bound anew on every run. Its variables are named parameters ({@code
 * DSL.param(name, type)}) whose values each run sets through the same parameters ({@link Binds});
 * its other bind values are constants of the statement.
 *
 * <p>jOOQ renders named parameters as {@code :name} and unnamed ones as {@code :index}; rendering
 * replaces each by a JDBC {@code ?} outside quoted identifiers and string literals, and records
 * which variable or constant it stands for.
 */
public final class RenderedStatement {

  private final String sql;

  /** Per placeholder: the variable's name, or {@code null} for a constant. */
  private final String[] variables;

  /** Per placeholder: the constant's value when it is not a variable. */
  private final Object[] constants;

  /** Per placeholder: the variable's Java type, or {@code null} for a constant. */
  private final Class<?>[] types;

  /** Per placeholder: its {@link java.sql.Types} code, for binding a null. */
  private final int[] sqlTypes;

  /** How many statements {@link #sql} holds, separated by semicolons; see {@link #then}. */
  private final int statements;

  private RenderedStatement(
      String sql,
      List<String> variables,
      List<Object> constants,
      List<Class<?>> types,
      List<Integer> sqlTypes) {
    this(
        sql,
        variables.toArray(String[]::new),
        constants.toArray(),
        types.toArray(Class<?>[]::new),
        sqlTypes.stream().mapToInt(Integer::intValue).toArray(),
        1);
  }

  private RenderedStatement(
      String sql,
      String[] variables,
      Object[] constants,
      Class<?>[] types,
      int[] sqlTypes,
      int statements) {
    this.sql = sql;
    this.variables = variables;
    this.constants = constants;
    this.types = types;
    this.sqlTypes = sqlTypes;
    this.statements = statements;
  }

  /**
   * This statement, then {@code next}, as one: pgjdbc sends the statements of one prepared
   * statement in one round trip, and the server runs them in order and runs none after one that
   * fails. The variables of both are bound from the same values, so their names must not collide
   * unless they mean the same value.
   */
  public RenderedStatement then(RenderedStatement next) {
    return new RenderedStatement(
        sql + ";\n" + next.sql,
        concat(variables, next.variables),
        concat(constants, next.constants),
        concat(types, next.types),
        IntStream.concat(Arrays.stream(sqlTypes), Arrays.stream(next.sqlTypes)).toArray(),
        statements + next.statements);
  }

  private static <T> T[] concat(T[] first, T[] second) {
    T[] both = Arrays.copyOf(first, first.length + second.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    return both;
  }

  /** Renders {@code query} with {@code renderer}'s settings (dialect, schema and table mapping). */
  public static RenderedStatement of(DSLContext renderer, Query query) {
    String named = renderer.renderNamedParams(query);
    Map<String, Param<?>> params = renderer.extractParams(query);
    StringBuilder sql = new StringBuilder(named.length());
    List<String> variables = new ArrayList<>();
    List<Object> constants = new ArrayList<>();
    List<Class<?>> types = new ArrayList<>();
    List<Integer> sqlTypes = new ArrayList<>();
    int i = 0;
    while (i < named.length()) {
      char c = named.charAt(i);
      if (c == '\'' || c == '"') {
        int end = closingQuote(named, i);
        sql.append(named, i, end + 1);
        i = end + 1;
      } else if (c == ':'
          && i + 1 < named.length()
          && isNameChar(named.charAt(i + 1))
          && (i == 0 || named.charAt(i - 1) != ':')) {
        int end = i + 1;
        while (end < named.length() && isNameChar(named.charAt(end))) {
          end++;
        }
        String name = named.substring(i + 1, end);
        Param<?> param = params.get(name);
        if (param == null) {
          throw new IllegalStateException("No parameter :" + name + " in " + named);
        }
        boolean constant = Character.isDigit(name.charAt(0));
        variables.add(constant ? null : name);
        constants.add(constant ? param.getValue() : null);
        types.add(constant ? null : param.getType());
        sqlTypes.add(param.getDataType().getSQLType());
        sql.append('?');
        i = end;
      } else {
        sql.append(c);
        i++;
      }
    }
    return new RenderedStatement(sql.toString(), variables, constants, types, sqlTypes);
  }

  /** The index of the quote closing the one at {@code start}; a doubled quote is an escape. */
  private static int closingQuote(String text, int start) {
    char quote = text.charAt(start);
    int i = start + 1;
    while (i < text.length()) {
      if (text.charAt(i) == quote) {
        if (i + 1 < text.length() && text.charAt(i + 1) == quote) {
          i += 2;
          continue;
        }
        return i;
      }
      i++;
    }
    throw new IllegalStateException("Unterminated quote in " + text);
  }

  private static boolean isNameChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }

  /** The statement's text, with JDBC placeholders. */
  public String sql() {
    return sql;
  }

  /** How many statements it runs: 1, or more when made by {@link #then}. */
  public int statements() {
    return statements;
  }

  /**
   * The value of every placeholder, in order: a variable's from {@code binds}, a constant's as
   * rendered. Throws {@link IllegalArgumentException} naming the variable when {@code binds} has no
   * value for it, or has one set through a parameter of another type.
   */
  public Object[] values(Binds binds) {
    Object[] values = new Object[variables.length];
    for (int i = 0; i < variables.length; i++) {
      String name = variables[i];
      if (name == null) {
        values[i] = constants[i];
        continue;
      }
      Binds.Bound bound = binds.get(name);
      if (bound == null) {
        throw new IllegalArgumentException("No value for :" + name + " in " + sql);
      }
      if (bound.type() != types[i]) {
        throw new IllegalArgumentException(
            ":"
                + name
                + " has type "
                + types[i].getSimpleName()
                + " in "
                + sql
                + ", but its value was set as "
                + bound.type().getSimpleName());
      }
      values[i] = bound.value();
    }
    return values;
  }

  /**
   * Sets every placeholder to its {@linkplain #values value}. Values may be strings, numbers,
   * {@link java.util.UUID}, {@link java.time.OffsetDateTime}, byte arrays, {@link JSONB}, {@link
   * Duration} (for an interval) and arrays of {@code Long}, {@code Integer}, {@code String} or
   * {@code OffsetDateTime}.
   */
  public void bind(PreparedStatement statement, Binds binds) throws SQLException {
    Object[] values = values(binds);
    for (int i = 0; i < values.length; i++) {
      Object value = values[i];
      if (value == null) {
        statement.setNull(i + 1, sqlTypes[i]);
      } else {
        set(statement, i + 1, value);
      }
    }
  }

  private static void set(PreparedStatement statement, int index, Object value)
      throws SQLException {
    if (value instanceof JSONB json) {
      statement.setString(index, json.data());
    } else if (value instanceof Duration duration) {
      statement.setString(index, duration.toString());
    } else if (value instanceof byte[] bytes) {
      statement.setBytes(index, bytes);
    } else if (value instanceof Object[] array) {
      statement.setArray(
          index, statement.getConnection().createArrayOf(arrayType(array.getClass()), array));
    } else {
      statement.setObject(index, value);
    }
  }

  private static String arrayType(Class<?> arrayClass) {
    Class<?> component = arrayClass.getComponentType();
    if (component == Long.class) {
      return "int8";
    }
    if (component == Integer.class) {
      return "int4";
    }
    if (component == String.class) {
      return "text";
    }
    if (component == OffsetDateTime.class) {
      return "timestamptz";
    }
    throw new IllegalArgumentException("No SQL array type for " + arrayClass.getSimpleName());
  }
}
