package dev.relayer.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.testkit.transport.BrokerFixture;
import dev.relayer.testkit.transport.ConsumedMessage;
import dev.relayer.transport.memory.InMemoryTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jooq.autoconfigure.JooqAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;

/**
 * A fresh database with Relayer's tables for each test class (created before its first test,
 * dropped after its last; the outbox and the dead table are emptied before each test), and a
 * context runner with the auto-configurations a Spring Boot jOOQ application has (data source,
 * transaction manager, transactions, jOOQ) plus Relayer's, pointed at that database. Registered
 * with {@code @RegisterExtension} on a static field.
 */
final class StarterFixture implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {

  /** Keeps the sweeper from delivering anything within a test: only the hand-off can. */
  static final String SWEEPER_OUT_OF_THE_WAY = "relayer.maintenance.recovery-delay=1h";

  /**
   * Removes the environment variables from a context's environment. The brokers' variables of the
   * test run ({@code RELAYER_RABBITMQ_URI}, {@code RELAYER_NATS_URL}) are also, by relaxed binding,
   * {@code relayer.rabbitmq.uri} and {@code relayer.nats.url}; a test that sets or leaves out these
   * properties on purpose must not get them from the environment.
   */
  static final ApplicationContextInitializer<ConfigurableApplicationContext>
      WITHOUT_ENVIRONMENT_VARIABLES =
          context ->
              context
                  .getEnvironment()
                  .getPropertySources()
                  .remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);

  TestDatabase database;
  DSLContext dsl;

  @Override
  public void beforeAll(ExtensionContext context) {
    database = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(database.dataSource(), SchemaOptions.defaults());
    dsl = DSL.using(database.dataSource(), SQLDialect.POSTGRES);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    dsl.deleteFrom(DSL.table(DSL.name("relayer_outbox"))).execute();
    dsl.deleteFrom(DSL.table(DSL.name("relayer_outbox_dead"))).execute();
  }

  /** The runner: Boot's data and transaction auto-configurations, Relayer's, this database. */
  ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class,
                TransactionAutoConfiguration.class,
                JooqAutoConfiguration.class,
                RelayerAutoConfiguration.class,
                RelayerHealthContributorAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + database.jdbcUrl(),
            "spring.datasource.username=" + database.user(),
            "spring.datasource.password="
                + (database.password() == null ? "" : database.password()),
            "spring.datasource.hikari.maximum-pool-size=6");
  }

  /**
   * Places one order ({@link PlacedOrders}) through {@code transport} to {@code destination} in the
   * running {@code context}, and checks that {@code broker} received exactly it, as an {@code
   * OrderPlaced} with {@code body}, and that the outbox then emptied.
   */
  void placedOrderArrives(
      ApplicationContext context,
      BrokerFixture broker,
      String transport,
      String destination,
      String body,
      Duration timeout)
      throws Exception {
    context.getBean(PlacedOrders.class).place(transport, destination, body);

    List<ConsumedMessage> received = broker.consumeUntil(destination, r -> !r.isEmpty(), timeout);

    assertThat(received).hasSize(1);
    assertThat(received.get(0).messageType()).isEqualTo("OrderPlaced");
    assertThat(new String(received.get(0).body(), StandardCharsets.UTF_8)).isEqualTo(body);
    await().atMost(Duration.ofSeconds(5)).until(() -> outboxRows() == 0);
  }

  /** Rows in the outbox now. */
  int outboxRows() {
    return dsl.fetchCount(DSL.table(DSL.name("public", "relayer_outbox")));
  }

  /** Lease rows now held in the name of {@code owner}. */
  int leasesOf(String owner) {
    return dsl.fetchCount(
        DSL.table(DSL.name("public", "relayer_leases")),
        DSL.field(DSL.name("owner"), String.class).eq(owner));
  }

  /** An unordered message to the in-memory transport {@code memory}. */
  static NewMessage message(String body) {
    return NewMessage.builder()
        .transport("memory")
        .destination("orders")
        .messageType("OrderPlaced")
        .body(body.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  /** An ordered message to {@code memory} under {@code key}. */
  static NewMessage ordered(String key, String body) {
    return NewMessage.builder()
        .transport("memory")
        .destination("orders")
        .messageType("OrderPlaced")
        .orderingKey(key)
        .body(body.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  static String body(InMemoryTransport.Delivery delivery) {
    return new String(delivery.message().body(), StandardCharsets.UTF_8);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    database.close();
  }

  /** The in-memory transport as the application's {@code Transport} bean. */
  @Configuration(proxyBeanMethods = false)
  static class MemoryTransport {
    @Bean
    InMemoryTransport memory() {
      return InMemoryTransport.named("memory");
    }
  }
}
