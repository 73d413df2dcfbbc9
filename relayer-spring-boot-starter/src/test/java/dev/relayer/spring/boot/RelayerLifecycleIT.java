package dev.relayer.spring.boot;

import static dev.relayer.spring.boot.StarterFixture.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.api.SchemaMismatchException;
import dev.relayer.dispatch.Relayer;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The auto-configuration as an application gets it: started and stopped with the context, failing
 * start-up on a missing table, turned off whole or in parts, and backing off for the application's
 * own Relayer.
 */
class RelayerLifecycleIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  @Test
  void contextCloseStopsRelayerAndReleasesItsLeasesBeforeThePoolCloses() {
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(Application.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.datasource.url=" + fixture.database.jdbcUrl(),
                "spring.datasource.username=" + fixture.database.user(),
                "spring.datasource.password=" + password(fixture.database),
                "relayer.lane-count=2")
            .run();
    Relayer relayer = context.getBean(Relayer.class);
    HikariDataSource pool = context.getBean(HikariDataSource.class);
    assertThat(context.getBean(RelayerLifecycle.class).isRunning()).isTrue();
    // Running: the sweeper, cleanup, the two lanes and the instance heartbeat hold leases.
    await().atMost(Duration.ofSeconds(10)).until(() -> fixture.leasesOf(relayer.owner()) >= 3);

    context.close();

    assertThat(pool.isClosed()).isTrue();
    // Released by Relayer's close, which therefore ran while the pool was still open.
    assertThat(fixture.leasesOf(relayer.owner())).isZero();
    assertThatThrownBy(relayer::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is closed");
  }

  @Test
  void missingTableFailsStartUpNamingIt() {
    try (TestDatabase database = TestDatabase.create()) {
      RelayerSchemaInstaller.applyScript(database.dataSource(), SchemaOptions.defaults());
      DSL.using(database.dataSource(), org.jooq.SQLDialect.POSTGRES)
          .dropTable(DSL.name("public", "relayer_inbox"))
          .execute();
      fixture
          .runner()
          .withUserConfiguration(StarterFixture.MemoryTransport.class)
          .withPropertyValues("spring.datasource.url=" + database.jdbcUrl())
          .run(
              context -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(SchemaMismatchException.class)
                    .hasMessageContaining("relayer_inbox")
                    .hasMessageContaining("does not exist");
              });
    }
  }

  @Test
  void relayerEnabledFalseCreatesNothing() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues("relayer.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(Relayer.class);
              assertThat(context).doesNotHaveBean(SpringCommitHandoff.class);
              assertThat(context).doesNotHaveBean(RelayerLifecycle.class);
              assertThat(context).doesNotHaveBean(RelayerHealthIndicator.class);
              assertThat(context).doesNotHaveBean(RelayerProperties.class);
            });
  }

  @Test
  void maintenanceAndLanesTurnedOffLeaveDirectDispatchRunningAndTakeNoLease() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues(
            StarterFixture.SWEEPER_OUT_OF_THE_WAY,
            "relayer.maintenance.enabled=false",
            "relayer.lanes.enabled=false")
        .run(
            context -> {
              Relayer relayer = context.getBean(Relayer.class);
              InMemoryTransport memory = context.getBean(InMemoryTransport.class);

              enqueueInSpringTransaction(context, "direct");

              await().atMost(Duration.ofSeconds(1)).until(() -> memory.deliveries().size() == 1);
              await()
                  .during(Duration.ofSeconds(1))
                  .atMost(Duration.ofSeconds(2))
                  .until(() -> fixture.leasesOf(relayer.owner()) == 0);
            });
  }

  @Test
  void dispatchTurnedOffOnlyWritesEvenWithATransportBean() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues("relayer.dispatch.enabled=false", "relayer.external-transports=memory")
        .run(
            context -> {
              Relayer relayer = context.getBean(Relayer.class);
              InMemoryTransport memory = context.getBean(InMemoryTransport.class);

              enqueueInSpringTransaction(context, "kept for another instance");

              await()
                  .during(Duration.ofSeconds(1))
                  .atMost(Duration.ofSeconds(2))
                  .until(() -> memory.attempts().isEmpty());
              assertThat(fixture.outboxRows()).isEqualTo(1);
              assertThat(fixture.leasesOf(relayer.owner())).isZero();
            });
  }

  @Test
  void anEnqueueNamingATransportNoBeanRegistersFailsInTheApplicationsTransactionAndWritesNothing() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class)
        .withPropertyValues(StarterFixture.SWEEPER_OUT_OF_THE_WAY)
        .run(
            context -> {
              Relayer relayer = context.getBean(Relayer.class);
              DSLContext dsl = context.getBean(DSLContext.class);
              assertThatThrownBy(
                      () ->
                          context
                              .getBean(TransactionTemplate.class)
                              .executeWithoutResult(
                                  status ->
                                      relayer
                                          .store()
                                          .enqueue(
                                              dsl,
                                              dev.relayer.store.NewMessage.builder()
                                                  .transport("rabbit")
                                                  .destination("orders")
                                                  .messageType("OrderPlaced")
                                                  .body(new byte[] {1})
                                                  .build())))
                  .isInstanceOf(dev.relayer.api.InvalidInputException.class)
                  .hasMessageContaining("transport 'rabbit' is not known")
                  .hasMessageContaining("known: 'memory'");
              assertThat(fixture.outboxRows()).isZero();
            });
  }

  @Test
  void applicationsOwnRelayerReplacesTheAutoConfiguredOneAndStillGetsTheHandoff() {
    fixture
        .runner()
        .withUserConfiguration(StarterFixture.MemoryTransport.class, OwnRelayer.class)
        .withPropertyValues(StarterFixture.SWEEPER_OUT_OF_THE_WAY)
        .run(
            context -> {
              assertThat(context).hasSingleBean(Relayer.class);
              assertThat(context.getBean(Relayer.class).owner()).isEqualTo("own-relayer");
              InMemoryTransport memory = context.getBean(InMemoryTransport.class);

              enqueueInSpringTransaction(context, "through the own Relayer");

              await().atMost(Duration.ofSeconds(1)).until(() -> memory.deliveries().size() == 1);
            });
  }

  private static void enqueueInSpringTransaction(
      org.springframework.context.ApplicationContext context, String body) {
    Relayer relayer = context.getBean(Relayer.class);
    DSLContext dsl = context.getBean(DSLContext.class);
    context
        .getBean(TransactionTemplate.class)
        .executeWithoutResult(status -> relayer.store().enqueue(dsl, message(body)));
  }

  private static String password(TestDatabase database) {
    return database.password() == null ? "" : database.password();
  }

  /**
   * An application: auto-configuration from the class path (but none for the brokers or Liquibase,
   * which the tests' class path has for other tests), and the in-memory transport.
   */
  @SpringBootConfiguration
  @EnableAutoConfiguration(
      excludeName = {
        "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration",
        "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
        "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration"
      })
  @Import(StarterFixture.MemoryTransport.class)
  static class Application {}

  /** The application's own Relayer bean. */
  @Configuration(proxyBeanMethods = false)
  static class OwnRelayer {
    @Bean
    Relayer relayer(DataSource dataSource, InMemoryTransport memory) {
      return Relayer.builder(dataSource)
          .owner("own-relayer")
          .sharedTransport(memory)
          .maintenance(
              dev.relayer.dispatch.MaintenanceOptions.builder()
                  .recoveryDelay(Duration.ofHours(1))
                  .build())
          .build();
    }
  }
}
