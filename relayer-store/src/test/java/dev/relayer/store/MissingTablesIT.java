package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.SchemaMismatchException;
import dev.relayer.schema.SchemaOptions;
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
                  store.tryAcquireLease(
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
                  store.claimByIds(
                      dsl, new ClaimByIds(List.of(1L), Instant.now(), Duration.ofSeconds(5))))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("\"public\".\"relayer_outbox\"");
    }
  }
}
