package dev.relayer.dispatch.internal;

import java.lang.reflect.Method;
import java.util.List;
import java.util.OptionalInt;
import javax.sql.DataSource;
import org.jooq.ConnectionProvider;
import org.jooq.DSLContext;
import org.jooq.impl.DataSourceConnectionProvider;

/**
 * The most connections a pool hands out, where the pool says so through a getter of the usual
 * pools: HikariCP's {@code getMaximumPoolSize}, Commons DBCP 2's {@code getMaxTotal}, Tomcat JDBC's
 * {@code getMaxActive} and c3p0's {@code getMaxPoolSize}. Read by reflection, so that Relayer
 * depends on none of them; empty for any other data source, or a context without one.
 */
public final class PoolSize {

  private static final List<String> GETTERS =
      List.of("getMaximumPoolSize", "getMaxTotal", "getMaxActive", "getMaxPoolSize");

  private PoolSize() {}

  /** The maximum size of the pool behind {@code dsl}'s connection provider, if it says. */
  public static OptionalInt of(DSLContext dsl) {
    ConnectionProvider provider = dsl.configuration().connectionProvider();
    return provider instanceof DataSourceConnectionProvider pooled
        ? of(pooled.dataSource())
        : OptionalInt.empty();
  }

  /** The maximum size {@code dataSource} states, if it is a pool of a known shape. */
  public static OptionalInt of(DataSource dataSource) {
    for (String getter : GETTERS) {
      try {
        Method method = dataSource.getClass().getMethod(getter);
        if (method.getReturnType() == int.class && method.getParameterCount() == 0) {
          int size = (int) method.invoke(dataSource);
          // A pool not yet configured may say 0 or -1 ("unbounded", "default"): not a size.
          return size > 0 ? OptionalInt.of(size) : OptionalInt.empty();
        }
      } catch (NoSuchMethodException e) {
        // Not this pool's getter: try the next.
      } catch (ReflectiveOperationException | RuntimeException e) {
        return OptionalInt.empty();
      }
    }
    return OptionalInt.empty();
  }
}
