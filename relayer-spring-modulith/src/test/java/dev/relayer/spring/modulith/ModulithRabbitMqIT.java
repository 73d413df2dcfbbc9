package dev.relayer.spring.modulith;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.Transport;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.spring.boot.RelayerAutoConfiguration;
import dev.relayer.spring.boot.RelayerJacksonAutoConfiguration;
import dev.relayer.spring.boot.transport.RabbitMqTransportAutoConfiguration;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.testkit.transport.ConsumedMessage;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jooq.autoconfigure.JooqAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.modulith.events.config.EventExternalizationAutoConfiguration;
import org.springframework.transaction.annotation.Transactional;

/**
 * Spring Modulith's {@code @Externalized} events reach a real RabbitMQ ({@code
 * RELAYER_RABBITMQ_URI}) through Relayer: written in the publishing transaction, delivered by
 * Relayer's dispatcher after its commit, and never when it rolls back. The sweeper waits an hour,
 * so only the commit's hand-off delivers within a test.
 */
class ModulithRabbitMqIT {

  static final String QUEUE = "relayer-modulith-it";
  static final String DESTINATION = "/" + QUEUE;

  private static TestDatabase db;
  private static DSLContext dsl;
  private static RabbitMqFixture rabbit;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    dsl.execute("create table orders (id text primary key)");
    rabbit = RabbitMqFixture.direct(false);
    try (Channel channel = rabbit.admin().createChannel()) {
      channel.queueDeclare(QUEUE, true, false, false, Map.of("x-expires", 600_000));
    }
  }

  @AfterAll
  static void tearDown() throws Exception {
    try (Channel channel = rabbit.admin().createChannel()) {
      channel.queueDelete(QUEUE);
    } finally {
      rabbit.close();
      db.close();
    }
  }

  @BeforeEach
  void empty() throws Exception {
    dsl.execute("truncate relayer_outbox, orders");
    try (Channel channel = rabbit.admin().createChannel()) {
      channel.queuePurge(QUEUE);
    }
  }

  /** The application: its package is where Modulith looks for {@code @Externalized} events. */
  @Configuration(proxyBeanMethods = false)
  @AutoConfigurationPackage
  static class Application {
    @Bean
    Orders orders(DSLContext dsl, ApplicationEventPublisher events) {
      return new Orders(dsl, events);
    }
  }

  /** Application code: a business row and an event, in one transaction. */
  public static class Orders {
    private final DSLContext dsl;
    private final ApplicationEventPublisher events;

    public Orders(DSLContext dsl, ApplicationEventPublisher events) {
      this.dsl = dsl;
      this.events = events;
    }

    /** Inserts the order, publishes {@code event}, runs {@code before} the commit. */
    @Transactional
    public void place(String orderId, Object event, Runnable beforeCommit) {
      dsl.execute("insert into orders values (?)", orderId);
      events.publishEvent(event);
      beforeCommit.run();
    }
  }

  private static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class,
                TransactionAutoConfiguration.class,
                JooqAutoConfiguration.class,
                JacksonAutoConfiguration.class,
                RelayerAutoConfiguration.class,
                RelayerJacksonAutoConfiguration.class,
                RabbitMqTransportAutoConfiguration.class,
                EventExternalizationAutoConfiguration.class,
                RelayerModulithAutoConfiguration.class))
        .withUserConfiguration(Application.class)
        .withPropertyValues(
            "spring.datasource.url=" + db.jdbcUrl(),
            "spring.datasource.username=" + db.user(),
            "spring.datasource.password=" + (db.password() == null ? "" : db.password()),
            "relayer.rabbitmq.enabled=true",
            "relayer.rabbitmq.uri=" + RabbitMqFixture.brokerUri(),
            "relayer.maintenance.recovery-delay=1h");
  }

  private static List<ConsumedMessage> consume(int count) throws Exception {
    return rabbit.consumeUntil(DESTINATION, r -> r.size() >= count, Duration.ofSeconds(15));
  }

  private static int outboxRows() {
    return dsl.fetchCount(DSL.table("relayer_outbox"));
  }

  private static int orders() {
    return dsl.fetchCount(DSL.table("orders"));
  }

  @Test
  void anExternalizedEventPublishedInACommittedTransactionArrivesAtRabbitMqThroughRelayer() {
    runner()
        .run(
            context -> {
              AtomicReference<Record> inTransaction = new AtomicReference<>();
              DSLContext app = context.getBean(DSLContext.class);

              context
                  .getBean(Orders.class)
                  .place(
                      "o-1",
                      new OrderPlaced("o-1", 1250),
                      () -> inTransaction.set(app.fetchOne("select * from relayer_outbox")));

              List<ConsumedMessage> received = consume(1);
              assertThat(received).hasSize(1);
              assertThat(received.get(0).messageType()).isEqualTo("order.placed");
              assertThat(received.get(0).headers())
                  .containsEntry("content-type", "application/json");
              assertThat(new String(received.get(0).body(), UTF_8))
                  .isEqualTo("{\"orderId\":\"o-1\",\"cents\":1250}");
              Record row = inTransaction.get();
              assertThat(row).as("written inside the publishing transaction").isNotNull();
              assertThat(row.get("transport")).isEqualTo("rabbitmq");
              assertThat(row.get("destination")).isEqualTo(DESTINATION);
              assertThat(row.get("ordering_key")).as("the routing key").isEqualTo("o-1");
              assertThat(row.get("message_id").toString()).isEqualTo(received.get(0).messageId());
              assertThat(orders()).isEqualTo(1);
            });
  }

  @Test
  void anExternalizedEventPublishedInARolledBackTransactionNeverReachesTheBroker() {
    runner()
        .run(
            context -> {
              Orders orders = context.getBean(Orders.class);

              assertThatThrownBy(
                      () ->
                          orders.place(
                              "o-2",
                              new OrderPlaced("o-2", 100),
                              () -> {
                                throw new IllegalStateException("payment declined");
                              }))
                  .hasMessage("payment declined");
              // A committed event after the rolled-back one: once it arrived, the first would
              // have arrived before it if it had been sent at all.
              orders.place("o-3", new OrderPlaced("o-3", 300), () -> {});

              List<ConsumedMessage> received = consume(1);
              assertThat(received)
                  .extracting(m -> new String(m.body(), UTF_8))
                  .containsExactly("{\"orderId\":\"o-3\",\"cents\":300}");
              // The committed row is deleted once sent; the rolled-back one never existed (were it
              // committed, it would wait here for the sweeper, an hour away).
              await().atMost(Duration.ofSeconds(5)).until(() -> outboxRows() == 0);
              assertThat(rabbit.consumeUntil(DESTINATION, r -> !r.isEmpty(), Duration.ofSeconds(2)))
                  .as("nothing more comes")
                  .isEmpty();
              assertThat(dsl.fetch("select id from orders").getValues(0, String.class))
                  .containsExactly("o-3");
            });
  }

  @Test
  void anEventWithoutRelayerMessageTypeIsRefusedAtPublishAndItsTransactionRollsBack() {
    runner()
        .run(
            context -> {
              assertThatThrownBy(
                      () -> context.getBean(Orders.class).place("o-4", new Untyped("u"), () -> {}))
                  .isInstanceOf(InvalidInputException.class)
                  .hasMessageContaining("cannot enqueue dev.relayer.spring.modulith.Untyped")
                  .hasMessageContaining("no message type");
              assertThat(orders()).isZero();
              assertThat(outboxRows()).isZero();
            });
  }

  @Test
  void anExternalizedEventPublishedOutsideATransactionIsRefused() {
    runner()
        .run(
            context -> {
              ApplicationContext app = context;
              assertThatThrownBy(() -> app.publishEvent(new OrderPlaced("o-5", 1)))
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessageContaining("published outside a transaction");
              assertThat(outboxRows()).isZero();
            });
  }

  @Test
  void eitherSwitchLeavesEventsToModulithAndWritesNothing() {
    for (String off :
        List.of(
            "relayer.modulith.enabled=false",
            "spring.modulith.events.externalization.enabled=false")) {
      runner()
          .withPropertyValues(off)
          .run(
              context -> {
                assertThat(context).as(off).doesNotHaveBean(RelayerEventExternalizer.class);
                context.getBean(Orders.class).place("o-6", new OrderPlaced("o-6", 6), () -> {});
                assertThat(outboxRows()).as(off).isZero();
              });
      dsl.execute("truncate orders");
    }
  }

  @Test
  void withSeveralTransportsAndNoTransportPropertyTheContextFailsNamingTheProperty() {
    runner()
        .withBean(
            "second",
            Transport.class,
            () ->
                RabbitMqTransport.builder().name("other").uri(RabbitMqFixture.brokerUri()).build())
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("relayer.modulith.transport must be set"));
  }
}
