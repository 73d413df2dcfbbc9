package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.testkit.TestDatabase;
import java.sql.Connection;
import java.util.List;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.Scope;
import liquibase.changelog.FastCheckService;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Relayer's changelog run by Liquibase itself with values that Liquibase's parameter syntax or the
 * changeset id could misread: each is rejected by validation before anything is created.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LiquibaseValuesIT {

  private static final String CHANGELOG = "db/changelog/relayer/db.changelog-relayer.xml";

  private TestDatabase database;
  private DSLContext dsl;

  @BeforeAll
  void createDatabase() {
    System.setProperty("liquibase.analytics.enabled", "false");
    database = TestDatabase.create();
    dsl = DSL.using(database.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterAll
  void dropDatabase() {
    database.close();
  }

  /** Liquibase's Java API with the raw parameter values, as an application would call it. */
  private void update(String schema, String prefix) throws Exception {
    Scope.getCurrentScope().getSingleton(FastCheckService.class).clearCache();
    try (Connection connection = database.connect()) {
      Database db =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(connection));
      try (Liquibase liquibase = new Liquibase(CHANGELOG, new ClassLoaderResourceAccessor(), db)) {
        liquibase.setChangeLogParameter("relayer.schema", schema);
        liquibase.setChangeLogParameter("relayer.prefix", prefix);
        liquibase.update(new Contexts(), new LabelExpression());
      }
    }
  }

  private List<String> relayerTables() {
    return dsl.fetch(
            "select n.nspname || '.' || c.relname from pg_class c"
                + " join pg_namespace n on n.oid = c.relnamespace"
                + " where c.relkind = 'r' and c.relname like '%outbox'"
                + " order by 1")
        .getValues(0, String.class);
  }

  @Test
  void changesetIdsOfDifferentInstallsNeverCollide() throws Exception {
    // Both would have been "relayer-1-create-tables schema=lb_a prefix=b prefix=c_".
    assertThatThrownBy(() -> update("lb_a prefix=b", "c_"))
        .hasMessageContaining("relayer.schema is 'lb_a prefix=b'")
        .hasMessageContaining("must not contain ' prefix='");
    update("lb_a", "b prefix=c_");
    update("lb_a", "b prefix=c_");

    assertThat(relayerTables()).containsExactly("lb_a.b prefix=c_outbox");
    assertThat(
            dsl.fetch("select id from databasechangelog order by orderexecuted")
                .getValues(0, String.class))
        .containsExactly(
            "relayer-1-create-tables schema=lb_a prefix=b prefix=c_",
            "relayer-2-operations schema=lb_a prefix=b prefix=c_",
            "relayer-3-lane-key-index schema=lb_a prefix=b prefix=c_",
            "relayer-4-idempotency-keys schema=lb_a prefix=b prefix=c_");
  }

  @Test
  void aValueThatLiquibaseWouldExpandIsRejectedBeforeAnythingIsCreated() throws Exception {
    // Liquibase expands p${relayer.schema}_ to plb_p_, while a store given the value would name
    // other tables.
    assertThatThrownBy(() -> update("lb_p", "p${relayer.schema}_"))
        .hasMessageContaining("relayer.prefix is 'p${relayer.schema}_'")
        .hasMessageContaining("must not contain '${'");
    assertThatThrownBy(() -> update("lb_${relayer.prefix}", "x_"))
        .hasMessageContaining("relayer.schema is 'lb_${relayer.prefix}'");
    assertThatThrownBy(() -> StoreOptions.of(dev.relayer.schema.SchemaOptions.of("lb_p", "p${x}_")))
        .hasMessageContaining("must not contain \"${\"");

    assertThat(relayerTables()).doesNotContain("lb_p.plb_p_outbox", "lb_x_.x_outbox");
  }
}
