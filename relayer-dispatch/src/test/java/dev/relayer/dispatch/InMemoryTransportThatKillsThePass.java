package dev.relayer.dispatch;

import dev.relayer.transport.memory.InMemoryTransport;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jooq.impl.DSL;

/**
 * Wraps an in-memory transport whose first batch terminates the backends of the test database that
 * sit inside an open transaction — the sweep pass's own connection, which then cannot commit.
 */
final class InMemoryTransportThatKillsThePass {

  private final InMemoryTransport delegate;

  InMemoryTransportThatKillsThePass(DispatchFixture fx, AtomicBoolean killed) {
    this.delegate =
        InMemoryTransport.named("memory")
            .reject(
                message -> {
                  if (killed.compareAndSet(false, true)) {
                    terminateOtherBackends(fx);
                  }
                  return false;
                },
                "never");
  }

  InMemoryTransport delegate() {
    return delegate;
  }

  private static void terminateOtherBackends(DispatchFixture fx) {
    try (var connection = fx.database.connect()) {
      var activity = DSL.table(DSL.name("pg_catalog", "pg_stat_activity"));
      DSL.using(connection)
          .select(DSL.function("pg_terminate_backend", Boolean.class, DSL.field(DSL.name("pid"))))
          .from(activity)
          .where(DSL.field(DSL.name("datname"), String.class).eq(fx.database.name()))
          .and(DSL.field(DSL.name("state"), String.class).eq("idle in transaction"))
          .and(DSL.field(DSL.name("pid")).ne(DSL.function("pg_backend_pid", Integer.class)))
          .fetch();
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
