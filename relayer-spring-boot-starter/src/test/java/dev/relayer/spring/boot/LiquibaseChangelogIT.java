package dev.relayer.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.testkit.TestDatabase;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import liquibase.integration.spring.SpringLiquibase;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jooq.autoconfigure.JooqAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The two ways a Spring Boot application applies Relayer's changelog before the Relayer starts
 * (which checks the schema and fails start-up on a missing table): included from the application's
 * master changelog with {@code relayer.schema} and {@code relayer.prefix} as {@code
 * spring.liquibase.parameters.*}, or a second {@code SpringLiquibase} bean. Each test has its own
 * schema of a fresh database.
 */
class LiquibaseChangelogIT {

  private static TestDatabase database;
  private static DSLContext dsl;

  @BeforeAll
  static void database() {
    database = TestDatabase.create();
    dsl = DSL.using(database.dataSource(), SQLDialect.POSTGRES);
    // Liquibase creates no schema of its own; Relayer's changelog creates its schema itself.
    dsl.createSchema("app").execute();
    dsl.createSchema("bare").execute();
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
  }

  private static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class,
                TransactionAutoConfiguration.class,
                JooqAutoConfiguration.class,
                LiquibaseAutoConfiguration.class,
                RelayerAutoConfiguration.class))
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues(
            "spring.datasource.url=" + database.jdbcUrl(),
            "spring.datasource.username=" + database.user(),
            "spring.datasource.password="
                + (database.password() == null ? "" : database.password()),
            "spring.liquibase.analytics-enabled=false");
  }

  @Test
  void masterChangelogIncludingRelayersCreatesTheTablesTheRelayerStartsOn() {
    runner()
        .withPropertyValues(
            "spring.liquibase.change-log=classpath:db/changelog/app/master.xml",
            "spring.liquibase.parameters.relayer.schema=included",
            "spring.liquibase.parameters.relayer.prefix=orders_",
            "relayer.schema=included",
            "relayer.prefix=orders_")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(RelayerLifecycle.class).isRunning()).isTrue();
              assertThat(tables("public")).contains("orders");
              assertThat(tables("included"))
                  .contains("orders_outbox", "orders_outbox_dead", "orders_inbox", "orders_leases");
            });
  }

  @Test
  void secondSpringLiquibaseBeanAppliesRelayersChangelogNextToTheApplications() {
    runner()
        .withUserConfiguration(TwoChangelogs.class)
        .withPropertyValues("relayer.schema=second", "relayer.prefix=")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBeansOfType(SpringLiquibase.class))
                  .containsOnlyKeys("liquibase", "relayerLiquibase");
              assertThat(context.getBean(RelayerLifecycle.class).isRunning()).isTrue();
              assertThat(tables("app")).contains("orders");
              assertThat(tables("second")).contains("outbox", "outbox_dead", "inbox", "leases");
            });
  }

  @Test
  void withoutRelayersChangelogStartupFailsNamingTheMissingTable() {
    runner()
        .withPropertyValues(
            "spring.liquibase.change-log=classpath:db/changelog/app/orders.xml",
            "spring.liquibase.default-schema=bare",
            "relayer.schema=bare")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("bare")
                    .hasMessageContaining("does not exist"));
  }

  private static List<String> tables(String schema) {
    return dsl.fetch(
            "select table_name from information_schema.tables where table_schema = ?", schema)
        .getValues(0, String.class);
  }

  /**
   * The application's changelog and Relayer's as two beans. Spring Boot's own {@code liquibase}
   * bean backs off when the application defines any {@code SpringLiquibase}, so the application
   * defines both.
   */
  @Configuration(proxyBeanMethods = false)
  static class TwoChangelogs {

    @Bean
    SpringLiquibase liquibase(DataSource dataSource) {
      SpringLiquibase liquibase = new SpringLiquibase();
      liquibase.setDataSource(dataSource);
      liquibase.setChangeLog("classpath:db/changelog/app/orders.xml");
      liquibase.setDefaultSchema("app");
      liquibase.setAnalyticsEnabled(false);
      return liquibase;
    }

    @Bean
    SpringLiquibase relayerLiquibase(DataSource dataSource) {
      SpringLiquibase liquibase = new SpringLiquibase();
      liquibase.setDataSource(dataSource);
      liquibase.setChangeLog("classpath:db/changelog/relayer/db.changelog-relayer.xml");
      liquibase.setChangeLogParameters(Map.of("relayer.schema", "second", "relayer.prefix", ""));
      liquibase.setAnalyticsEnabled(false);
      return liquibase;
    }
  }
}
