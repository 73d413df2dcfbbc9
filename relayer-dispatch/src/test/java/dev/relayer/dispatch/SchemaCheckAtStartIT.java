package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.SchemaMismatchException;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.transport.memory.InMemoryTransport;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every background component checks the schema at start and fails naming what is missing. */
class SchemaCheckAtStartIT {

  TestDatabase db;
  DSLContext dsl;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create();
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  private static boolean relayerThreadsRunning() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().startsWith("relayer-public.app_"));
  }

  @Test
  void everyComponentsStartFailsNamingTheMissingTableAndStartsNothing() {
    RelayerStore store = RelayerStore.create(StoreOptions.of(SchemaOptions.of("public", "app_")));
    try (RelayerDispatcher dispatcher =
            RelayerDispatcher.builder(store, dsl)
                .transport(InMemoryTransport.named("memory"))
                .build();
        RelayerMaintenance maintenance = RelayerMaintenance.create(dispatcher);
        RelayerLanes lanes = RelayerLanes.create(dispatcher)) {

      for (Runnable start : new Runnable[] {dispatcher::start, maintenance::start, lanes::start}) {
        assertThatThrownBy(start::run)
            .isInstanceOf(SchemaMismatchException.class)
            .hasMessageContaining("\"public\".\"app_outbox\" does not exist")
            .satisfies(
                e ->
                    assertThat(((SchemaMismatchException) e).objectName())
                        .isEqualTo("\"public\".\"app_outbox\""));
      }
      assertThat(relayerThreadsRunning()).as("no component started a thread").isFalse();

      RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.of("public", "app_"));
      dispatcher.start();
      maintenance.start();
      assertThat(relayerThreadsRunning()).as("start works once the tables exist").isTrue();
    }
  }

  @Test
  void aMissingColumnIsNamedAtStart() {
    RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
    dsl.execute("alter table public.relayer_leases drop column expires_at");
    RelayerStore store = RelayerStore.create(StoreOptions.defaults());
    try (RelayerDispatcher dispatcher =
        RelayerDispatcher.builder(store, dsl)
            .transport(InMemoryTransport.named("memory"))
            .build()) {

      assertThatThrownBy(dispatcher::start)
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("lacks column expires_at");
    }
  }
}
