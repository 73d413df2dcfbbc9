package dev.relayer.spring.boot;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import dev.relayer.api.InvalidInputException;
import dev.relayer.api.RelayerHeaders;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.inbox.IncomingMessage;
import dev.relayer.spring.boot.inbox.AmqpMessages;
import dev.relayer.spring.boot.inbox.InboxGuarded;
import dev.relayer.spring.boot.inbox.RelayerInboxAutoConfiguration;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.amqp.autoconfigure.SimpleRabbitListenerContainerFactoryConfigurer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;

/**
 * An {@link InboxGuarded} {@code @RabbitListener} on real RabbitMQ deliveries, published by
 * Relayer's RabbitMQ transport: Spring Boot's listener container, the application's {@code
 * DSLContext} and its Spring transactions.
 */
class InboxGuardedRabbitListenerIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  private static RabbitMqFixture rabbit;
  private static RabbitMqTransport transport;

  @BeforeAll
  static void start() throws Exception {
    rabbit = RabbitMqFixture.direct(false);
    transport = RabbitMqTransport.builder().uri(RabbitMqFixture.brokerUri()).build();
  }

  @AfterAll
  static void stop() throws Exception {
    transport.close();
    rabbit.close();
  }

  private ApplicationContextRunner runner(String queue) {
    fixture.dsl.execute(
        "create table if not exists billed (message_id uuid primary key, message_type text not"
            + " null, tenant_id text)");
    URI uri = URI.create(RabbitMqFixture.brokerUri());
    String[] user =
        uri.getUserInfo() == null ? new String[] {"guest", "guest"} : uri.getUserInfo().split(":");
    return fixture
        .runner()
        .withInitializer(StarterFixture.WITHOUT_ENVIRONMENT_VARIABLES)
        .withConfiguration(
            AutoConfigurations.of(
                RabbitAutoConfiguration.class, RelayerInboxAutoConfiguration.class))
        .withUserConfiguration(BillingConfig.class)
        .withPropertyValues(
            StarterFixture.SWEEPER_OUT_OF_THE_WAY,
            "spring.rabbitmq.host=" + uri.getHost(),
            "spring.rabbitmq.port=" + (uri.getPort() > 0 ? uri.getPort() : 5672),
            "spring.rabbitmq.username=" + user[0],
            "spring.rabbitmq.password=" + user[1],
            "test.queue=" + queue);
  }

  @Test
  void aSecondDeliveryOfTheSameMessageIdIsAckedAndDroppedAndTheMethodRunsOnce() throws Exception {
    String queue = rabbit.declareQueue(Map.of());
    OutgoingMessage message = message("acme");

    runner(queue)
        .run(
            context -> {
              BillingLedger billing = context.getBean(BillingLedger.class);
              publish(queue, message);
              publish(queue, message); // the sweeper's replay: the same message id again
              await().atMost(Duration.ofSeconds(20)).until(() -> ready(queue) == 0);
              await().atMost(Duration.ofSeconds(20)).until(() -> !billing.calls.isEmpty());
              IncomingMessage call = billing.calls.get(0);
              assertThat(call.messageId()).isEqualTo(message.messageId());
              assertThat(call.messageType()).isEqualTo("OrderPlaced");
              assertThat(call.tenantId()).isEqualTo("acme");
              assertThat(billing.tenantHeaders).containsExactly("acme");
            }); // closing the context waits for the listener, then closes its channel

    assertThat(billedRows(message.messageId())).isEqualTo(1);
    assertThat(inboxRows("billing", message.messageId())).isEqualTo(1);
    assertThat(ready(queue)).isZero();
  }

  @Test
  void aFailureRollsBackTheInboxRowAndTheWorkAndTheRequeuedMessageIsHandledOnce() throws Exception {
    String queue = rabbit.declareQueue(Map.of());
    OutgoingMessage message = message(null);

    runner(queue)
        .run(
            context -> {
              BillingLedger billing = context.getBean(BillingLedger.class);
              billing.failNext.set(1);
              publish(queue, message);
              await().atMost(Duration.ofSeconds(20)).until(() -> billing.calls.size() >= 2);
              assertThat(billing.calls).hasSize(2);
              assertThat(billing.calls.get(1).tenantId()).isNull();
            });

    // The failed call's insert rolled back with the inbox row: the message came again, was not
    // taken for a duplicate, and the second call could insert again.
    assertThat(billedRows(message.messageId())).isEqualTo(1);
    assertThat(inboxRows("billing", message.messageId())).isEqualTo(1);
    assertThat(ready(queue)).as("acknowledged after the second call").isZero();
  }

  @Test
  void aCrashBetweenTheCommitAndTheAckRedeliversAndTheRedeliveredCopyIsDropped() throws Exception {
    String queue = rabbit.declareQueue(Map.of());
    OutgoingMessage message = message("globex");

    runner(queue)
        .withUserConfiguration(CrashAfterCommit.class)
        .run(
            context -> {
              BillingLedger billing = context.getBean(BillingLedger.class);
              CrashAfterCommit crash = context.getBean(CrashAfterCommit.class);
              publish(queue, message);
              await().atMost(Duration.ofSeconds(30)).until(() -> crash.redeliveries.get() >= 1);
              assertThat(crash.crashed.get()).isTrue();
              assertThat(billing.calls).as("the method ran once").hasSize(1);
            });

    assertThat(billedRows(message.messageId())).isEqualTo(1);
    assertThat(inboxRows("billing", message.messageId())).isEqualTo(1);
    assertThat(ready(queue)).as("the redelivered copy was acknowledged").isZero();
  }

  @Test
  void aGuardedMethodWithoutTheBrokersMessageFailsNamingTheMethodAndRunsNothing() throws Exception {
    String queue = rabbit.declareQueue(Map.of());
    runner(queue)
        .withUserConfiguration(MisusedConfig.class)
        .run(
            context -> {
              Misused misused = context.getBean(Misused.class);
              assertThatThrownBy(() -> misused.handle("{\"orderId\":42}"))
                  .isInstanceOf(InvalidInputException.class)
                  .hasMessageContaining("@InboxGuarded method Misused.handle has no argument");
              assertThat(misused.calls()).isZero();
            });
  }

  // ---------------------------------------------------------------------------------------------

  /** A guarded method that takes only the payload: nothing to read a message id from. */
  static class Misused {
    private final AtomicInteger calls = new AtomicInteger();

    /** Through the proxy, so read by a method: a proxy's own fields are not the bean's. */
    public int calls() {
      return calls.get();
    }

    @InboxGuarded("misused")
    public void handle(String payload) {
      calls.incrementAndGet();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class MisusedConfig {
    @Bean
    Misused misused() {
      return new Misused();
    }
  }

  /** The application's listener: bills each order in the guard's transaction. */
  static class Billing {

    private final DSLContext dsl;
    private final BillingLedger ledger;

    Billing(DSLContext dsl, BillingLedger ledger) {
      this.dsl = dsl;
      this.ledger = ledger;
    }

    @RabbitListener(queues = "${test.queue}")
    @InboxGuarded("billing")
    public void bill(
        Message message,
        @Header(name = RelayerHeaders.TENANT_ID, required = false) @Nullable String tenant) {
      IncomingMessage incoming = AmqpMessages.read(message);
      if (tenant != null) {
        ledger.tenantHeaders.add(tenant);
      }
      ledger.bill(dsl, incoming);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class BillingConfig {
    @Bean
    BillingLedger ledger() {
      return new BillingLedger();
    }

    @Bean
    Billing billing(DSLContext dsl, BillingLedger ledger) {
      return new Billing(dsl, ledger);
    }
  }

  /**
   * A listener container whose advice chain, around the guarded method, cuts the connection once,
   * after the method returned (so after the guard's commit) and before the container acknowledges:
   * the crash of a process between its commit and its ack.
   */
  @Configuration(proxyBeanMethods = false)
  static class CrashAfterCommit {

    final AtomicBoolean crashed = new AtomicBoolean();
    final AtomicInteger redeliveries = new AtomicInteger();

    @Bean
    SimpleRabbitListenerContainerFactory rabbitListenerContainerFactory(
        SimpleRabbitListenerContainerFactoryConfigurer configurer,
        ConnectionFactory connectionFactory) {
      SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
      configurer.configure(factory, connectionFactory);
      factory.setRecoveryInterval(200L);
      factory.setAdviceChain(
          (MethodInterceptor)
              invocation -> {
                Message message = (Message) invocation.getArguments()[1];
                if (message.getMessageProperties().isRedelivered()) {
                  redeliveries.incrementAndGet();
                }
                Object result = invocation.proceed();
                if (crashed.compareAndSet(false, true)) {
                  Channel channel = (Channel) invocation.getArguments()[0];
                  channel.getConnection().abort();
                }
                return result;
              });
      return factory;
    }
  }

  // ---------------------------------------------------------------------------------------------

  private static OutgoingMessage message(@Nullable String tenant) {
    return new OutgoingMessage(
        UUID.randomUUID(),
        "OrderPlaced",
        Map.of(),
        "{\"orderId\":42}".getBytes(UTF_8),
        null,
        tenant);
  }

  private static void publish(String queue, OutgoingMessage message) throws Exception {
    List<SendResult> results =
        transport.send(new TransportBatch("/" + queue, List.of(message), Duration.ofSeconds(10)));
    assertThat(results).singleElement().matches(SendResult::isAccepted, "accepted");
  }

  /**
   * Messages ready in the queue; once the listener's container has stopped, unacknowledged ones are
   * back among them.
   */
  private static long ready(String queue) throws Exception {
    try (Channel channel = rabbit.admin().createChannel()) {
      return channel.queueDeclarePassive(queue).getMessageCount();
    }
  }

  private static int billedRows(UUID messageId) {
    return fixture.dsl.fetchCount(
        DSL.table(DSL.name("billed")), DSL.field(DSL.name("message_id"), UUID.class).eq(messageId));
  }

  private static int inboxRows(String consumer, UUID messageId) {
    return fixture.dsl.fetchCount(
        DSL.table(DSL.name("public", "relayer_inbox")),
        DSL.field(DSL.name("consumer"), String.class)
            .eq(consumer)
            .and(DSL.field(DSL.name("message_id"), UUID.class).eq(messageId)));
  }
}
