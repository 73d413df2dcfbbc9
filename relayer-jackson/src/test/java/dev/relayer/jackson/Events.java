package dev.relayer.jackson;

import dev.relayer.api.message.OrderingKey;
import dev.relayer.api.message.RelayerMessage;
import dev.relayer.api.message.TenantId;
import java.math.BigDecimal;
import org.jspecify.annotations.Nullable;

/** The event classes the typed-enqueue tests send. */
final class Events {

  private Events() {}

  /** Type, route, ordering key and tenant all from annotations. */
  @RelayerMessage(value = "order.placed", transport = "memory", destination = "orders")
  record OrderPlaced(@OrderingKey String orderId, @TenantId String tenant, BigDecimal total) {}

  /** A type, no route: routed at the call or by a registration. */
  @RelayerMessage("order.shipped")
  record OrderShipped(String orderId) {}

  /** No annotation at all: a class that must be registered to be sent. */
  record PaymentTaken(String orderId, long cents) {}

  /** Annotated, but Jackson cannot write it: its only property's getter throws. */
  @RelayerMessage(value = "invoice.issued", transport = "memory", destination = "invoices")
  static final class InvoiceIssued {
    private final @Nullable String number = null;

    public String getNumber() {
      if (number == null) {
        throw new IllegalStateException("invoice number not assigned yet");
      }
      return number;
    }
  }

  /** An ordering key that can be null. */
  @RelayerMessage(value = "cart.updated", transport = "memory", destination = "carts")
  record CartUpdated(@OrderingKey String cartId) {}

  /** A transport without a destination. */
  @RelayerMessage(value = "half.routed", transport = "memory")
  record HalfRouted(String id) {}

  /** Two ordering keys. */
  @RelayerMessage(value = "two.keys", transport = "memory", destination = "x")
  record TwoKeys(@OrderingKey String a, @OrderingKey String b) {}
}
