package dev.relayer.dispatch.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.message.MessageRoute;
import dev.relayer.api.message.OrderingKey;
import dev.relayer.api.message.RelayerMessage;
import dev.relayer.api.message.TenantId;
import dev.relayer.api.spi.MessageSerializer;
import dev.relayer.dispatch.message.MessageTypes;
import dev.relayer.store.NewMessage;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class TypedMessagesTest {

  /** Writes {@code toString()}, as text. */
  private static final MessageSerializer TEXT =
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
      };

  @RelayerMessage(value = "cart.updated", transport = "memory", destination = "carts")
  record CartUpdated(@OrderingKey String cartId, @TenantId @Nullable String tenant) {}

  /** A plain class with accessor methods instead of record components. */
  @RelayerMessage(value = "stock.changed", transport = "memory", destination = "stock")
  public static class StockChanged {
    @OrderingKey
    public long sku() {
      return 42;
    }
  }

  /** A base class registered once for its subclasses. */
  abstract static class AuditEvent {
    abstract String entity();
  }

  static final class UserAudited extends AuditEvent {
    @Override
    String entity() {
      return "user-1";
    }

    @Override
    public String toString() {
      return "user";
    }
  }

  /** A subclass with its own annotation, which wins over its superclass's registration. */
  @RelayerMessage(value = "role.audited", transport = "memory", destination = "roles")
  static final class RoleAudited extends AuditEvent {
    @Override
    String entity() {
      return "role-1";
    }
  }

  @RelayerMessage("ledger.posted")
  record LedgerPosted(String account) {}

  private static NewMessage message(MessageTypes types, Object event) {
    return new TypedMessages(TEXT, types).message(event, null);
  }

  @Test
  void recordComponentsGiveTheOrderingKeyAndTenantAndANullTenantIsNone() {
    NewMessage withTenant = message(MessageTypes.none(), new CartUpdated("c-1", "acme"));
    NewMessage without = message(MessageTypes.none(), new CartUpdated("c-2", null));

    assertThat(withTenant.messageType()).isEqualTo("cart.updated");
    assertThat(withTenant.orderingKey()).isEqualTo("c-1");
    assertThat(withTenant.tenantId()).isEqualTo("acme");
    assertThat(withTenant.headers()).containsEntry("content-type", "text/plain");
    assertThat(without.tenantId()).isNull();
  }

  @Test
  void anAnnotatedMethodOfAPlainClassGivesTheOrderingKeyAsText() {
    assertThat(message(MessageTypes.none(), new StockChanged()).orderingKey()).isEqualTo("42");
  }

  @Test
  void aSuperclassRegistrationServesSubclassesWithoutAnnotationOfTheirOwn() {
    MessageTypes types =
        MessageTypes.builder()
            .register(
                AuditEvent.class,
                "audit.recorded",
                e -> MessageRoute.to("memory", "audit").orderedBy(e.entity()))
            .build();

    NewMessage user = message(types, new UserAudited());
    NewMessage role = message(types, new RoleAudited());

    assertThat(user.messageType()).isEqualTo("audit.recorded");
    assertThat(user.destination()).isEqualTo("audit");
    assertThat(user.orderingKey()).isEqualTo("user-1");
    assertThat(new String(user.body(), UTF_8)).isEqualTo("user");
    assertThat(role.messageType()).isEqualTo("role.audited");
    assertThat(role.destination()).isEqualTo("roles");
  }

  @Test
  void aRegistrationOverridesTheAnnotatedTypeAndKeepsTheAnnotatedRouteWhenItHasNone() {
    MessageTypes types =
        MessageTypes.builder().register(CartUpdated.class, "cart.updated.v2").build();

    NewMessage message = message(types, new CartUpdated("c-1", null));

    assertThat(message.messageType()).isEqualTo("cart.updated.v2");
    assertThat(message.destination()).isEqualTo("carts");
    assertThat(message.orderingKey()).isEqualTo("c-1");
  }

  @Test
  void aRouteFunctionThatReturnsNullOrABadRouteIsRefusedNamingTheClass() {
    MessageTypes nullRoute =
        MessageTypes.builder().register(LedgerPosted.class, "ledger.posted", e -> null).build();
    MessageTypes blankKey =
        MessageTypes.builder()
            .register(
                LedgerPosted.class,
                "ledger.posted",
                e -> new MessageRoute("memory", "ledger", "", null))
            .build();

    assertThatThrownBy(() -> message(nullRoute, new LedgerPosted("a")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("cannot enqueue " + LedgerPosted.class.getName())
        .hasMessageContaining("route function returned null");
    assertThatThrownBy(() -> message(blankKey, new LedgerPosted("a")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("its registered route: route orderingKey must be null");
  }

  @Test
  void aSerializerThatReturnsNullIsRefused() {
    MessageSerializer broken =
        new MessageSerializer() {
          @Override
          public String contentType() {
            return "x/y";
          }

          @Override
          @SuppressWarnings("NullAway")
          public byte[] serialize(Object message) {
            return null;
          }

          @Override
          public <T> T deserialize(byte[] body, Class<T> type) {
            throw new UnsupportedOperationException();
          }
        };

    assertThatThrownBy(
            () ->
                new TypedMessages(broken, MessageTypes.none())
                    .message(new CartUpdated("c", null), null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("returned a null body");
  }

  @Test
  void aNullEventIsRefused() {
    assertThatThrownBy(() -> new TypedMessages(TEXT, MessageTypes.none()).message(null, null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("event must not be null");
  }
}
