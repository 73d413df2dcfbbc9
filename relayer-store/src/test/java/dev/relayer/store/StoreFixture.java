package dev.relayer.store;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/** A fresh database with Relayer's tables for one test class, and helpers to write rows. */
final class StoreFixture implements AutoCloseable {

  final TestDatabase database;
  final SchemaOptions schema;
  final RelayerStore store;
  final DSLContext dsl;

  StoreFixture(SchemaOptions schema) {
    this.database = TestDatabase.create();
    this.schema = schema;
    RelayerSchemaInstaller.applyScript(database.dataSource(), schema);
    this.store = RelayerStore.create(StoreOptions.of(schema));
    this.dsl =
        DSL.using(
            database.dataSource(), SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
  }

  /** A context on a dedicated connection, for holding a transaction open across threads. */
  DSLContext open(Connection connection) {
    return DSL.using(connection, SQLDialect.POSTGRES);
  }

  Connection connect() throws SQLException {
    return database.connect();
  }

  static NewMessage.Builder message() {
    byte[] body = new byte[16];
    ThreadLocalRandom.current().nextBytes(body);
    return NewMessage.builder()
        .transport("memory")
        .destination("orders")
        .messageType("OrderPlaced")
        .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .body(body);
  }

  static NewMessage unordered() {
    return message().build();
  }

  /** {@code count} unordered messages. */
  static List<NewMessage> unordered(int count) {
    List<NewMessage> messages = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      messages.add(unordered());
    }
    return messages;
  }

  static NewMessage ordered(String key) {
    return message().orderingKey(key).body(key.getBytes(StandardCharsets.UTF_8)).build();
  }

  static NewMessage scheduled(Instant deliverAt) {
    return message().deliverAt(deliverAt).build();
  }

  /** Runs {@code sql} on the store's own schema and prefix; {@code %s} is the outbox table. */
  int execute(String sqlTemplate, String base) {
    return dsl.execute(String.format(sqlTemplate, store.names().qualified(base)));
  }

  @Override
  public void close() {
    database.close();
  }
}
