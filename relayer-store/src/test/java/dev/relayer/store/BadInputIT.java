package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Bad input to the store and its options on a real PostgreSQL: rejected with an {@link
 * InvalidInputException} naming the field before any SQL, and nothing written anywhere.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputIT {

  /** An install in the schema the generated classes carry, where unmapped statements would go. */
  private static final SchemaOptions GENERATED = SchemaOptions.of("relayer", "relayer_");

  private TestDatabase database;
  private DSLContext dsl;

  @BeforeAll
  void createDatabase() {
    database = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(database.dataSource(), GENERATED);
    dsl = DSL.using(database.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterAll
  void dropDatabase() {
    database.close();
  }

  private int rowsOf(SchemaOptions install) {
    return new StoreDsl(install).map(dsl).fetchCount(RELAYER_OUTBOX);
  }

  @Test
  void aBlankSchemaIsRejectedBeforeItCanWriteIntoAnotherInstall() {
    for (String blank : new String[] {" ", "\t", "  \n"}) {
      assertThatThrownBy(
              () -> {
                SchemaOptions options = SchemaOptions.of(blank, "relayer_");
                RelayerSchemaInstaller.applyScript(database.dataSource(), options);
                RelayerStore.create(StoreOptions.of(options))
                    .enqueue(dsl, StoreFixture.unordered());
              })
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("schema")
          .hasMessageContaining("blank");
    }
    assertThat(rowsOf(GENERATED)).isZero();
    assertThat(
            dsl.fetchCount(
                DSL.table(DSL.name("pg_namespace")), DSL.field(DSL.name("nspname")).like(" %")))
        .isZero();
  }
}
