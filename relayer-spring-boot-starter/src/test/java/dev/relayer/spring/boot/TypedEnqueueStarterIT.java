package dev.relayer.spring.boot;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.message.OrderingKey;
import dev.relayer.api.message.RelayerMessage;
import dev.relayer.api.spi.MessageSerializer;
import dev.relayer.dispatch.Relayer;
import dev.relayer.jackson.JacksonMessageSerializer;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.time.LocalDate;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.Transactional;

/**
 * With {@code relayer-jackson} on the class path the starter gives the {@code Relayer} a JSON
 * serializer over Spring Boot's {@code JsonMapper} ({@code spring.jackson.*} applies), so a
 * {@code @Transactional} method can {@code publish} an annotated event: delivered after commit,
 * nothing when the method rolls back.
 */
class TypedEnqueueStarterIT {

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  @RelayerMessage(value = "order.placed", transport = "memory", destination = "orders")
  public record OrderPlaced(@OrderingKey String orderId, LocalDate placedOn) {}

  /** Application code: publishes in a transaction, optionally failing after. */
  public static class Orders {
    private final DSLContext dsl;
    private final Relayer relayer;

    public Orders(DSLContext dsl, Relayer relayer) {
      this.dsl = dsl;
      this.relayer = relayer;
    }

    @Transactional
    public void place(OrderPlaced event, boolean failAfter) {
      relayer.publish(dsl, event);
      if (failAfter) {
        throw new IllegalStateException("payment declined");
      }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {
      @Bean
      Orders orders(DSLContext dsl, Relayer relayer) {
        return new Orders(dsl, relayer);
      }
    }
  }

  private static ApplicationContextRunner runner() {
    return fixture
        .runner()
        .withConfiguration(
            AutoConfigurations.of(
                JacksonAutoConfiguration.class, RelayerJacksonAutoConfiguration.class))
        .withUserConfiguration(StarterFixture.MemoryTransport.class, Orders.Config.class)
        .withPropertyValues(StarterFixture.SWEEPER_OUT_OF_THE_WAY);
  }

  @Test
  void aPublishedEventIsSentAfterCommitAsJsonWrittenByBootsMapperAndNothingWhenRolledBack() {
    runner()
        .withPropertyValues("spring.jackson.property-naming-strategy=SNAKE_CASE")
        .run(
            context -> {
              Orders orders = context.getBean(Orders.class);
              InMemoryTransport memory = context.getBean(InMemoryTransport.class);

              assertThatThrownBy(
                      () -> orders.place(new OrderPlaced("o-0", LocalDate.of(2026, 1, 2)), true))
                  .hasMessage("payment declined");
              orders.place(new OrderPlaced("o-1", LocalDate.of(2026, 12, 7)), false);

              await().atMost(Duration.ofSeconds(10)).until(() -> memory.deliveries().size() >= 1);
              assertThat(memory.deliveries()).hasSize(1);
              InMemoryTransport.Delivery sent = memory.deliveries().get(0);
              assertThat(sent.message().messageType()).isEqualTo("order.placed");
              assertThat(sent.message().orderingKey()).isEqualTo("o-1");
              assertThat(sent.message().headers())
                  .containsEntry("content-type", "application/json");
              assertThat(new String(sent.message().body(), UTF_8))
                  .isEqualTo("{\"order_id\":\"o-1\",\"placed_on\":\"2026-12-07\"}");
              await().atMost(Duration.ofSeconds(5)).until(() -> fixture.outboxRows() == 0);
            });
  }

  @Test
  void anApplicationsOwnSerializerWinsOverJackson() {
    runner()
        .withBean(
            MessageSerializer.class,
            () ->
                new MessageSerializer() {
                  @Override
                  public String contentType() {
                    return "text/plain";
                  }

                  @Override
                  public byte[] serialize(Object message) {
                    return message.toString().getBytes(UTF_8);
                  }

                  @Override
                  public <T> T deserialize(byte[] body, Class<T> type) {
                    throw new UnsupportedOperationException();
                  }
                })
        .run(
            context -> {
              assertThat(context).getBeans(MessageSerializer.class).hasSize(1);
              assertThat(context.getBean(MessageSerializer.class).contentType())
                  .isEqualTo("text/plain");
            });
  }

  @Test
  void withoutRelayerJacksonThereIsNoSerializerAndPublishSaysWhatToAdd() {
    runner()
        .withClassLoader(new FilteredClassLoader(JacksonMessageSerializer.class))
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(MessageSerializer.class);
              Orders orders = context.getBean(Orders.class);
              assertThatThrownBy(
                      () -> orders.place(new OrderPlaced("o-2", LocalDate.of(2026, 1, 1)), false))
                  .isInstanceOf(InvalidInputException.class)
                  .hasMessageContaining("no MessageSerializer is configured");
              assertThat(fixture.outboxRows()).isZero();
            });
  }
}
