package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.SchemaMismatchException;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.TestPassSql;
import dev.relayer.store.schema.SchemaFinding;
import dev.relayer.store.schema.SchemaReport;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

class MissingTablesIT {

  @Test
  void aDatabaseWithoutTheTablesGivesAnErrorNamingTheMissingTable() {
    try (TestDatabase db = TestDatabase.create()) {
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      RelayerStore store = RelayerStore.create(StoreOptions.of(SchemaOptions.of("public", "app_")));

      assertThatThrownBy(() -> store.enqueue(dsl, StoreFixture.unordered()))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("\"public\".\"app_outbox\"")
          .satisfies(
              e ->
                  org.assertj.core.api.Assertions.assertThat(
                          ((SchemaMismatchException) e).objectName())
                      .isEqualTo("\"public\".\"app_outbox\""));
      assertThatThrownBy(() -> store.verifySchema(dsl))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("\"public\".\"app_outbox\" does not exist");
      assertThatThrownBy(
              () ->
                  TestPassSql.of(store)
                      .leases()
                      .tryAcquireLease(
                          dsl, new LeaseRequest("sweeper", "me", Duration.ofSeconds(5))))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("\"public\".\"app_leases\"");
    }
  }

  @Test
  void aTableWithoutAColumnGivesAnErrorNamingTheColumn() {
    try (TestDatabase db = TestDatabase.create()) {
      RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      dsl.execute("alter table public.relayer_outbox drop column tenant_id");
      RelayerStore store = RelayerStore.create(StoreOptions.defaults());

      assertThatThrownBy(() -> store.verifySchema(dsl))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("lacks column tenant_id");
      assertThatThrownBy(
              () ->
                  TestPassSql.of(store)
                      .outbox()
                      .claimByIds(
                          dsl, new ClaimByIds(List.of(1L), Instant.now(), Duration.ofSeconds(5))))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("\"public\".\"relayer_outbox\"");
    }
  }

  @Test
  void verifySchemaNamesAColumnOfAnotherType() {
    try (TestDatabase db = TestDatabase.create()) {
      RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      // Every body would come back as the text of its bytes: [1,2,3] as the 8 bytes of \x010203.
      dsl.execute("alter table public.relayer_outbox alter column body type text");
      RelayerStore store = RelayerStore.create(StoreOptions.defaults());

      assertThatThrownBy(() -> store.verifySchema(dsl))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("\"public\".\"relayer_outbox\" has column body of type text")
          .hasMessageContaining("Relayer needs bytea")
          .satisfies(
              e ->
                  assertThat(((SchemaMismatchException) e).objectName())
                      .isEqualTo("\"public\".\"relayer_outbox\".body"));
    }
  }

  @Test
  void aStoreNeverVerifiedRefusesItsFirstEnqueueIntoABodyOfTypeTextAndWritesNothing() {
    try (TestDatabase db = TestDatabase.create()) {
      RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      dsl.execute("alter table public.relayer_outbox alter column body type text");
      dsl.execute(
          "alter table public.relayer_inbox drop constraint relayer_inbox_message_id_check");
      dsl.execute("alter table public.relayer_inbox alter column message_id type text");
      // A writer-only process: no verifySchema, no Relayer.start().
      RelayerStore store = RelayerStore.create(StoreOptions.defaults());

      assertThatThrownBy(
              () ->
                  store.enqueue(
                      dsl,
                      NewMessage.builder()
                          .transport("memory")
                          .destination("orders")
                          .messageType("OrderPlaced")
                          .body(new byte[] {1, 2, 3})
                          .build()))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("\"public\".\"relayer_outbox\" has column body of type text")
          .hasMessageContaining("Relayer needs bytea");
      assertThat(dsl.fetchCount(DSL.table(DSL.name("public", "relayer_outbox")))).isZero();
      assertThatThrownBy(() -> store.tryRecordInbox(dsl, "billing", java.util.UUID.randomUUID()))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("\"public\".\"relayer_inbox\" has column message_id of type text");
      assertThat(dsl.fetchCount(DSL.table(DSL.name("public", "relayer_inbox")))).isZero();
    }
  }

  @Test
  void eachTableIsCheckedByOneCatalogStatementBeforeTheStoresFirstWriteToItAndNeverAgain() {
    try (TestDatabase db = TestDatabase.create()) {
      RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
      java.util.concurrent.atomic.AtomicInteger catalogReads =
          new java.util.concurrent.atomic.AtomicInteger();
      DSLContext dsl =
          DSL.using(db.dataSource(), SQLDialect.POSTGRES)
              .configuration()
              .deriveAppending(
                  org.jooq.ExecuteListener.onExecuteStart(
                      ctx -> {
                        if (String.valueOf(ctx.sql()).contains("pg_attribute")) {
                          catalogReads.incrementAndGet();
                        }
                      }))
              .dsl();
      RelayerStore store = RelayerStore.create(StoreOptions.defaults());

      store.enqueue(dsl, StoreFixture.unordered());
      assertThat(catalogReads).as("the first enqueue checks the outbox").hasValue(1);
      store.enqueue(dsl, List.of(StoreFixture.unordered(), StoreFixture.ordered("k")));
      assertThat(catalogReads).as("later enqueues do not").hasValue(1);
      store.tryRecordInbox(dsl, "billing", java.util.UUID.randomUUID());
      store.tryRecordInbox(dsl, "billing", java.util.UUID.randomUUID());
      assertThat(catalogReads).as("the first inbox record checks the inbox once").hasValue(2);

      RelayerStore verified = RelayerStore.create(StoreOptions.defaults());
      verified.verifySchema(dsl);
      int afterVerify = catalogReads.get();
      verified.enqueue(dsl, StoreFixture.unordered());
      verified.tryRecordInbox(dsl, "billing", java.util.UUID.randomUUID());
      assertThat(catalogReads)
          .as("a store whose verifySchema passed checks nothing more")
          .hasValue(afterVerify);
    }
  }

  @Test
  void verifySchemaNamesAColumnOfAnotherNullability() {
    try (TestDatabase db = TestDatabase.create()) {
      RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      dsl.execute("alter table public.relayer_inbox alter column processed_at drop not null");
      RelayerStore store = RelayerStore.create(StoreOptions.defaults());

      assertThatThrownBy(() -> store.verifySchema(dsl))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining(
              "\"public\".\"relayer_inbox\" has column processed_at nullable;"
                  + " Relayer needs it NOT NULL");
    }
  }

  @Test
  void statementsOnColumnsOfAnotherTypeOrNullabilityGiveASchemaMismatch() {
    try (TestDatabase db = TestDatabase.create()) {
      RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      RelayerStore store = RelayerStore.create(StoreOptions.defaults());
      long id = store.enqueue(dsl, StoreFixture.unordered());
      dsl.execute(
          "alter table public.relayer_outbox drop constraint relayer_outbox_attempts_check");
      dsl.execute("alter table public.relayer_outbox drop constraint relayer_outbox_lane_check");
      dsl.execute("alter table public.relayer_outbox alter column attempts drop default");
      dsl.execute("alter table public.relayer_outbox alter column attempts type text");

      // text + integer: 42883
      assertThatThrownBy(
              () ->
                  TestPassSql.of(store)
                      .outbox()
                      .claimByIds(
                          dsl, new ClaimByIds(List.of(id), Instant.now(), Duration.ofSeconds(5))))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("another type or nullability")
          .hasMessageContaining("\"public\".\"relayer_outbox\"");

      // an integer bound to a text column: 42804
      dsl.execute("alter table public.relayer_outbox alter column lane type text");
      assertThatThrownBy(() -> store.enqueue(dsl, StoreFixture.ordered("k")))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("another type or nullability");

      // a NOT NULL column Relayer leaves empty: 23502
      dsl.execute("alter table public.relayer_leases add column note text not null");
      assertThatThrownBy(
              () ->
                  TestPassSql.of(store)
                      .leases()
                      .tryAcquireLease(
                          dsl, new LeaseRequest("sweeper", "me", Duration.ofSeconds(5))))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("\"public\".\"relayer_leases\"");
    }
  }

  @Test
  void verifySchemaOnAVersionOneInstallFailsNamingTheOperationsTableAndTheUpgrade() {
    try (TestDatabase db = TestDatabase.create()) {
      SchemaOptions schema = SchemaOptions.of("messaging", "orders_");
      RelayerSchemaInstaller.applyVersion(db.dataSource(), schema, 1);
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      RelayerStore store = RelayerStore.create(StoreOptions.of(schema));

      assertThatThrownBy(() -> store.verifySchema(dsl))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("\"messaging\".\"orders_operations\" does not exist")
          .hasMessageContaining("schema version 1")
          .hasMessageContaining("relayer-2-operations")
          .hasMessageContaining("relayer-3-lane-key-index")
          .hasMessageContaining("relayer db script --provider postgres --from 1")
          .satisfies(
              e ->
                  assertThat(((SchemaMismatchException) e).objectName())
                      .isEqualTo("\"messaging\".\"orders_operations\""));

      RelayerSchemaInstaller.applyScript(db.dataSource(), schema);
      store.verifySchema(dsl);
    }
  }

  @Test
  void verifySchemaOnAVersionTwoInstallFailsNamingTheLaneKeyIndexAndTheUpgrade() {
    try (TestDatabase db = TestDatabase.create()) {
      SchemaOptions schema = SchemaOptions.of("my\"Schema X", "Ü-x_");
      RelayerSchemaInstaller.applyVersion(db.dataSource(), schema, 2);
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      RelayerStore store = RelayerStore.create(StoreOptions.of(schema));
      long id = store.enqueue(dsl, StoreFixture.ordered("k"));

      assertThatThrownBy(() -> store.verifySchema(dsl))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining(
              "Relayer index \"my\"\"Schema X\".\"Ü-x_outbox_lane_key_idx\" does not exist")
          .hasMessageContaining("the install is at schema version 2")
          .hasMessageContaining("relayer-3-lane-key-index")
          .hasMessageContaining("relayer db script --provider postgres --from 2")
          .satisfies(
              e ->
                  assertThat(((SchemaMismatchException) e).objectName())
                      .isEqualTo("\"my\"\"Schema X\".\"Ü-x_outbox_lane_key_idx\""));
      assertThat(store.findDrift(dsl).installedVersion()).contains(2);

      for (String statement :
          dev.relayer.schema.PostgreSqlOutboxSchema.upgradeStatements(schema, 2)) {
        dsl.execute(statement);
      }
      store.verifySchema(dsl);
      assertThat(store.findDrift(dsl).installedVersion()).contains(4);
      assertThat(
              dsl.fetchValue(
                  "select count(*) from \"my\"\"Schema X\".\"Ü-x_outbox\" where id = ?", id))
          .isEqualTo(1L);
    }
  }

  @Test
  void verifySchemaOnAVersionThreeInstallFailsNamingTheKeysTableAndTheUpgradeKeepsEveryRow() {
    try (TestDatabase db = TestDatabase.create()) {
      SchemaOptions schema = SchemaOptions.of("my\"Schema X", "Ü-x_");
      RelayerSchemaInstaller.applyVersion(db.dataSource(), schema, 3);
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      RelayerStore store = RelayerStore.create(StoreOptions.of(schema));
      long id = store.enqueue(dsl, StoreFixture.ordered("k"));
      NewMessage keyed = StoreFixture.message().idempotencyKey("order-1").build();

      assertThatThrownBy(() -> store.verifySchema(dsl))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining(
              "Relayer table \"my\"\"Schema X\".\"Ü-x_idempotency_keys\" does not exist")
          .hasMessageContaining("the install is at schema version 3")
          .hasMessageContaining("relayer-4-idempotency-keys")
          .hasMessageContaining("relayer db script --provider postgres --from 3")
          .satisfies(
              e ->
                  assertThat(((SchemaMismatchException) e).objectName())
                      .isEqualTo("\"my\"\"Schema X\".\"Ü-x_idempotency_keys\""));
      // An enqueue with a key checks the keys table first: nothing is written.
      assertThatThrownBy(() -> store.enqueueOnce(dsl, keyed))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("Ü-x_idempotency_keys\" does not exist");
      assertThat(dsl.fetchValue("select count(*) from \"my\"\"Schema X\".\"Ü-x_outbox\""))
          .isEqualTo(1L);
      assertThat(store.findDrift(dsl).installedVersion()).contains(3);
      assertThat(store.findDrift(dsl).findings())
          .extracting(SchemaFinding::problem)
          .singleElement()
          .asString()
          .contains("table Ü-x_idempotency_keys missing: the install is at schema version 3");

      for (String statement :
          dev.relayer.schema.PostgreSqlOutboxSchema.upgradeStatements(schema, 3)) {
        dsl.execute(statement);
      }
      store.verifySchema(dsl);
      assertThat(store.findDrift(dsl).installedVersion()).contains(4);
      assertThat(store.findDrift(dsl).compatible()).isTrue();
      assertThat(store.enqueueOnce(dsl, keyed).duplicate()).isFalse();
      assertThat(
              dsl.fetchValue(
                  "select count(*) from \"my\"\"Schema X\".\"Ü-x_outbox\" where id = ?", id))
          .isEqualTo(1L);
    }
  }

  @Test
  void verifySchemaRefusesALaneKeyIndexThatAConcurrentBuildLeftInvalidAndFindDriftNamesIt()
      throws Exception {
    try (TestDatabase db = TestDatabase.create()) {
      SchemaOptions schema = SchemaOptions.defaults();
      RelayerSchemaInstaller.applyVersion(db.dataSource(), schema, 2);
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      RelayerStore store = RelayerStore.create(StoreOptions.defaults());
      String build =
          dev.relayer.schema.PostgreSqlOutboxSchema.stepStatements(schema, 3)
              .get(0)
              .replace("CREATE INDEX IF NOT EXISTS", "CREATE INDEX CONCURRENTLY");
      // A CREATE INDEX CONCURRENTLY that fails after its first phase (here: it gives up waiting
      // for a writer's open transaction) leaves the index behind, marked invalid: the planner
      // never uses it, and the step's IF NOT EXISTS does not replace it.
      try (java.sql.Connection writer = db.dataSource().getConnection();
          java.sql.Connection operator = db.dataSource().getConnection();
          java.sql.Statement statement = operator.createStatement()) {
        writer.setAutoCommit(false);
        store.enqueue(DSL.using(writer, SQLDialect.POSTGRES), StoreFixture.ordered("k"));
        statement.execute("set lock_timeout = '200ms'");
        assertThatThrownBy(() -> statement.execute(build))
            .isInstanceOf(java.sql.SQLException.class)
            .satisfies(
                e -> assertThat(((java.sql.SQLException) e).getSQLState()).isEqualTo("55P03"));
        writer.rollback();
      }
      for (String statement :
          dev.relayer.schema.PostgreSqlOutboxSchema.upgradeStatements(schema, 2)) {
        dsl.execute(statement);
      }

      assertThatThrownBy(() -> store.verifySchema(dsl))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("\"public\".\"relayer_outbox_lane_key_idx\" is not valid")
          .hasMessageContaining("drop the index and create it again");
      SchemaReport report = store.findDrift(dsl);
      assertThat(report.installedVersion()).contains(4);
      assertThat(report.findings())
          .extracting(SchemaFinding::problem)
          .singleElement()
          .asString()
          .startsWith("index relayer_outbox_lane_key_idx is invalid");

      dsl.execute("drop index public.relayer_outbox_lane_key_idx");
      for (String statement :
          dev.relayer.schema.PostgreSqlOutboxSchema.upgradeStatements(schema, 2)) {
        dsl.execute(statement);
      }
      store.verifySchema(dsl);
      assertThat(store.findDrift(dsl).compatible()).isTrue();
    }
  }

  @Test
  void findDriftInTheCallersTransactionLeavesItUsableAndCreatesNothing() {
    try (TestDatabase db = TestDatabase.create()) {
      RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      RelayerStore store = RelayerStore.create(StoreOptions.defaults());

      long id =
          dsl.transactionResult(
              tx -> {
                long enqueued = store.enqueue(tx.dsl(), StoreFixture.unordered());
                SchemaReport report = store.findDrift(tx.dsl());
                assertThat(report.findings()).isEmpty();
                assertThat(report.installedVersion()).contains(4);
                // The caller's statement before the check is still there, in its transaction.
                assertThat(tx.dsl().fetchCount(DSL.table("public.relayer_outbox"))).isEqualTo(1);
                return enqueued;
              });

      assertThat(dsl.fetchValue("select count(*) from public.relayer_outbox where id = ?", id))
          .isEqualTo(1L);
      assertThat(store.findDrift(dsl).compatible()).isTrue();
      assertThat(
              dsl.fetchValue(
                  "select count(*) from pg_class where relpersistence = 't'"
                      + " and relname like 'relayer_%'"))
          .isEqualTo(0L);
    }
  }
}
