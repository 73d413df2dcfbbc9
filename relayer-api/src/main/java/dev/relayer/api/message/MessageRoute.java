package dev.relayer.api.message;

import dev.relayer.api.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where a typed message goes: the transport that delivers it, its destination there, and optionally
 * its ordering key and tenant.
 *
 * <pre>{@code
 * MessageRoute.to("kafka", "orders").orderedBy(event.orderId())
 * }</pre>
 *
 * @param transport the name of a registered transport; not blank
 * @param destination transport-specific (exchange/routing key, topic, subject); not blank
 * @param orderingKey messages with the same key are delivered in commit order; {@code null} for
 *     unordered, never empty
 * @param tenantId carried with the message; {@code null} for none
 */
public record MessageRoute(
    String transport, String destination, @Nullable String orderingKey, @Nullable String tenantId) {

  /**
   * Checks the route.
   *
   * @throws InvalidInputException naming a blank transport or destination, or an empty ordering key
   */
  public MessageRoute {
    List<String> problems = new ArrayList<>();
    if (transport == null || transport.isBlank()) {
      problems.add("route transport must not be blank");
    }
    if (destination == null || destination.isBlank()) {
      problems.add("route destination must not be blank");
    }
    if (orderingKey != null && orderingKey.isEmpty()) {
      problems.add("route orderingKey must be null (unordered) or non-empty");
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
  }

  /** An unordered route without tenant to {@code destination} on {@code transport}. */
  public static MessageRoute to(String transport, String destination) {
    return new MessageRoute(transport, destination, null, null);
  }

  /** This route with ordering key {@code key} ({@code null} for unordered). */
  public MessageRoute orderedBy(@Nullable String key) {
    return new MessageRoute(transport, destination, key, tenantId);
  }

  /** This route with tenant {@code tenant} ({@code null} for none). */
  public MessageRoute forTenant(@Nullable String tenant) {
    return new MessageRoute(transport, destination, orderingKey, tenant);
  }
}
