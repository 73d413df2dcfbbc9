package dev.relayer.opentelemetry;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.nio.charset.StandardCharsets;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/** A fresh database with Relayer's tables (default names), a store and a jOOQ context on it. */
final class OutboxDatabase implements AutoCloseable {

  final TestDatabase database = TestDatabase.create();
  final DSLContext dsl;
  final RelayerStore store = RelayerStore.create(StoreOptions.defaults());

  OutboxDatabase() {
    RelayerSchemaInstaller.applyScript(database.dataSource(), SchemaOptions.defaults());
    dsl = DSL.using(database.dataSource(), SQLDialect.POSTGRES);
  }

  /** The stored header {@code name} of outbox row {@code id}, or null. */
  @Nullable String header(long id, String name) {
    return dsl.fetchValue(
        DSL.field(
            "(select headers ->> {0} from public.relayer_outbox where id = {1})",
            String.class, DSL.val(name), DSL.val(id)));
  }

  static NewMessage.Builder message(String transport) {
    return NewMessage.builder()
        .transport(transport)
        .destination("orders")
        .messageType("OrderPlaced")
        .body("{\"order\":1}".getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    database.close();
  }
}
