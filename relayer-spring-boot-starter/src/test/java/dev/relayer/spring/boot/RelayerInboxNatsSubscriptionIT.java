package dev.relayer.spring.boot;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.inbox.IncomingMessage;
import dev.relayer.inbox.nats.NatsInbox;
import dev.relayer.spring.boot.inbox.RelayerInbox;
import dev.relayer.spring.boot.inbox.RelayerInboxAutoConfiguration;
import dev.relayer.transport.nats.NatsFixture;
import dev.relayer.transport.nats.NatsTransport;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Nats;
import io.nats.client.PushSubscribeOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;

/**
 * A NATS JetStream push subscription in a Spring Boot application, guarded through the {@link
 * RelayerInbox} bean as {@code docs/consuming.md} shows: the guard's transactions are Spring
 * transactions on the application's {@code DSLContext}.
 */
class RelayerInboxNatsSubscriptionIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  private static NatsFixture nats;
  private static NatsTransport transport;

  @BeforeAll
  static void start() throws Exception {
    nats = NatsFixture.shared();
    transport = NatsTransport.builder().url(nats.url()).build();
  }

  @AfterAll
  static void stop() throws Exception {
    transport.close();
    nats.close();
  }

  @Test
  void aFailedMessageIsNakedRolledBackAndHandledOnceWithItsTenantInASpringTransaction()
      throws Exception {
    fixture.dsl.execute(
        "create table if not exists shipped (message_id uuid primary key, tenant_id text)");
    String subject = nats.createStream(stream -> {});
    OutgoingMessage message =
        new OutgoingMessage(
            UUID.randomUUID(), "OrderPlaced", Map.of(), "{}".getBytes(UTF_8), null, "acme");
    List<IncomingMessage> calls = new CopyOnWriteArrayList<>();
    AtomicInteger failNext = new AtomicInteger(1);

    fixture
        .runner()
        .withInitializer(StarterFixture.WITHOUT_ENVIRONMENT_VARIABLES)
        .withConfiguration(AutoConfigurations.of(RelayerInboxAutoConfiguration.class))
        .withPropertyValues(StarterFixture.SWEEPER_OUT_OF_THE_WAY)
        .run(
            context -> {
              DSLContext dsl = context.getBean(DSLContext.class);
              NatsInbox shipping =
                  NatsInbox.of(context.getBean(RelayerInbox.class).guard("shipping"));
              try (Connection connection = Nats.connect(nats.url())) {
                Dispatcher dispatcher = connection.createDispatcher();
                connection
                    .jetStream()
                    .subscribe(
                        subject,
                        dispatcher,
                        shipping.messageHandler(
                            (tx, order) -> {
                              calls.add(order);
                              // The application's DSLContext joins the guard's transaction.
                              dsl.insertInto(DSL.table(DSL.name("shipped")))
                                  .columns(
                                      DSL.field(DSL.name("message_id")),
                                      DSL.field(DSL.name("tenant_id")))
                                  .values(order.messageId(), order.tenantId())
                                  .execute();
                              if (failNext.getAndDecrement() > 0) {
                                throw new IllegalStateException("shipping is down (test)");
                              }
                            }),
                        false,
                        PushSubscribeOptions.builder().durable("shipping").build());
                publish(subject, message);
                await().atMost(Duration.ofSeconds(20)).until(() -> calls.size() >= 2);
                await()
                    .atMost(Duration.ofSeconds(20))
                    .until(
                        () ->
                            connection
                                    .jetStreamManagement()
                                    .getConsumerInfo(nats.streamOf(subject), "shipping")
                                    .getNumAckPending()
                                == 0);
              }
            });

    assertThat(calls).hasSize(2).allMatch(call -> "acme".equals(call.tenantId()));
    assertThat(
            fixture.dsl.fetchCount(
                DSL.table(DSL.name("shipped")),
                DSL.field(DSL.name("message_id"), UUID.class).eq(message.messageId())))
        .as("the failed try's row rolled back")
        .isEqualTo(1);
    assertThat(
            fixture.dsl.fetchCount(
                DSL.table(DSL.name("public", "relayer_inbox")),
                DSL.field(DSL.name("message_id"), UUID.class).eq(message.messageId())))
        .isEqualTo(1);
  }

  private static void publish(String subject, OutgoingMessage message) throws Exception {
    List<SendResult> results =
        transport.send(new TransportBatch(subject, List.of(message), Duration.ofSeconds(10)));
    assertThat(results).singleElement().matches(SendResult::isAccepted, "accepted");
  }
}
