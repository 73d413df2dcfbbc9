package dev.relayer.store.internal;

import java.util.HashMap;
import java.util.Map;
import org.jooq.Param;
import org.jspecify.annotations.Nullable;

/**
 * The values of a {@link RenderedStatement}'s variables for one run, each set through the jOOQ
 * {@link Param} the statement was written with. The compiler checks a value against its variable's
 * type; binding checks that every variable of the statement has a value set through a parameter of
 * its name and type ({@link RenderedStatement#bind}). One {@code Binds} may serve several
 * statements that share variables.
 */
public final class Binds {

  /** A value and the Java type of the parameter it was set through. */
  public record Bound(Class<?> type, @Nullable Object value) {}

  private final Map<String, Bound> values = new HashMap<>();

  /** Sets {@code param}'s variable to {@code value} ({@code null} binds SQL {@code NULL}). */
  public <T> Binds set(Param<T> param, @Nullable T value) {
    values.put(param.getParamName(), new Bound(param.getType(), value));
    return this;
  }

  /** The value set for the variable {@code name}, or {@code null} when none was. */
  @Nullable Bound get(String name) {
    return values.get(name);
  }
}
