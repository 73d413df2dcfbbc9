package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.RelayerDispatcher;
import dev.relayer.dispatch.RelayerMaintenance;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.InboxOutcome;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.transport.memory.InMemoryTransport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/** A real process dies between the broker's acceptance and the delete; the message is replayed. */
class ProcessCrashIT {

  @Test
  void aProcessKilledAfterTheBrokerAcceptedReplaysTheSameMessageIdWhichTheInboxDrops()
      throws Exception {
    try (TestDatabase db = TestDatabase.create()) {
      RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
      Path broker = Files.createTempFile("relayer-broker", ".log");
      try {
        CliProcess child =
            CliProcess.runMain(
                CrashAfterAcceptMain.class, List.of(db.jdbcUrl(), db.user(), broker.toString()));
        assertThat(child.exitCode()).as("died in the crash window: %s", child.err()).isEqualTo(137);
        List<String> accepted = Files.readAllLines(broker, UTF_8);
        assertThat(accepted).hasSize(1);
        UUID messageId = UUID.fromString(accepted.get(0));

        DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        var outbox = table(name("public", "relayer_outbox"));
        assertThat(dsl.fetchCount(outbox)).as("the row outlived its sender").isEqualTo(1);
        assertThat(dsl.fetchValue(DSL.select(field(name("attempts"), Integer.class)).from(outbox)))
            .isEqualTo(1);

        RelayerStore store = RelayerStore.create(StoreOptions.defaults());
        InMemoryTransport file = InMemoryTransport.named("file");
        try (RelayerDispatcher dispatcher =
                RelayerDispatcher.builder(store, dsl)
                    .transport(file)
                    .options(DispatchOptions.defaults())
                    .build();
            RelayerMaintenance maintenance =
                RelayerMaintenance.create(
                    dispatcher,
                    MaintenanceOptions.builder()
                        .recoveryDelay(Duration.ZERO)
                        .sweepInterval(Duration.ofMillis(100))
                        .build())) {
          maintenance.start();
          // The dead process's claim (10 s) must lapse before the sweeper may take the row.
          await().atMost(Duration.ofSeconds(90)).until(() -> dsl.fetchCount(outbox) == 0);
        }
        assertThat(file.deliveredIds()).containsExactly(messageId);
        assertThat(store.tryRecordInbox(dsl, "billing", messageId)).isEqualTo(InboxOutcome.FIRST);
        assertThat(store.tryRecordInbox(dsl, "billing", file.deliveredIds().get(0)))
            .isEqualTo(InboxOutcome.DUPLICATE);
      } finally {
        Files.deleteIfExists(broker);
      }
    }
  }
}
