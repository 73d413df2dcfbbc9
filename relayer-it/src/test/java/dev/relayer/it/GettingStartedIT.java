package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.relayer.dispatch.Relayer;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.InboxOutcome;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * The README's getting-started code, run as written; {@link ReadmeSnippetsIT} checks that the
 * README shows exactly the code between the snippet markers.
 */
class GettingStartedIT {

  @Test
  void writeCommitDeliverAndDeduplicate() throws Exception {
    try (TestDatabase db = TestDatabase.create()) {
      RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
      DataSource dataSource = db.dataSource();
      DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
      dsl.createTable("orders").column("id", org.jooq.impl.SQLDataType.INTEGER).execute();
      String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
      List<String> processed = new ArrayList<>();

      // snippet:getting-started
      InMemoryTransport memory = InMemoryTransport.named("memory"); // or RabbitMQ, Kafka, NATS

      try (Relayer relayer =
          Relayer.builder(dataSource) // your pool; Relayer never closes it
              .schema("public") // where the tables are (the defaults, shown)
              .prefix("relayer_")
              .transport(memory) // owned: relayer.close() closes it
              .build()) {
        relayer.start(); // checks the tables; starts dispatch, maintenance and lanes
        RelayerStore store = relayer.store(); // enqueue and inbox, in your transactions
        DSLContext app = relayer.dsl(); // your pool, with the hand-off on commit installed

        app.transaction(
            tx -> {
              tx.dsl().insertInto(table(name("orders")), field(name("id"))).values(42).execute();
              store.enqueue(
                  tx.dsl(),
                  NewMessage.builder()
                      .transport("memory")
                      .destination("orders")
                      .messageType("OrderPlaced")
                      .header("traceparent", traceparent)
                      .body("{\"orderId\":42}".getBytes(UTF_8))
                      .build());
            }); // committed: a dispatcher worker claims, sends and deletes the row

        await().atMost(Duration.ofSeconds(30)).until(() -> memory.deliveries().size() == 1);

        // A consumer records each message id in its own transaction and drops duplicates.
        UUID messageId = memory.deliveries().get(0).message().messageId();
        app.transaction(
            tx -> {
              if (store.tryRecordInbox(tx.dsl(), "billing", messageId) == InboxOutcome.FIRST) {
                processed.add("order 42 billed"); // the consumer's own work, same transaction
              }
            });
      } // close(): stops lanes, maintenance and dispatch, then closes the transport
      // end-snippet

      assertThat(memory.deliveries()).hasSize(1);
      assertThat(memory.deliveries().get(0).message().headers())
          .containsEntry("traceparent", traceparent);
      assertThat(processed).containsExactly("order 42 billed");
      RelayerStore store = RelayerStore.create(StoreOptions.defaults());
      assertThat(store.tryRecordInbox(dsl, "billing", memory.deliveredIds().get(0)))
          .isEqualTo(InboxOutcome.DUPLICATE);
      assertThat(dsl.fetchCount(table(name("public", "relayer_outbox")))).isZero();
      assertThat(dsl.fetchCount(table(name("orders")))).isEqualTo(1);
      assertThat(store.leases(dsl)).as("close gave up every lease").isEmpty();
    }
  }
}
