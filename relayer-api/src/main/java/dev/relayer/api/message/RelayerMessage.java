package dev.relayer.api.message;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class as a Relayer message and gives its stable message type, and optionally its route.
 *
 * <pre>{@code
 * @RelayerMessage(value = "order.placed", transport = "rabbit", destination = "orders/order.placed")
 * public record OrderPlaced(@OrderingKey String orderId, BigDecimal total) {}
 * }</pre>
 *
 * The type is what consumers dispatch on, so it is chosen once and kept when the class is renamed
 * or moved: Relayer never falls back to the Java class name. {@link #transport()} and {@link
 * #destination()} are given together or not at all; without them the message needs a registered
 * route or an explicit one at enqueue. The annotation is not inherited: each concrete class names
 * its own type.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface RelayerMessage {

  /** The stable message type, for example {@code order.placed}; not blank. */
  String value();

  /** The name of the transport that delivers it; {@code ""} (the default) for no route here. */
  String transport() default "";

  /**
   * The transport-specific destination (exchange/routing key, topic, subject); {@code ""} (the
   * default) for no route here.
   */
  String destination() default "";
}
