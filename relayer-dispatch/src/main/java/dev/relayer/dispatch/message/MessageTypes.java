package dev.relayer.dispatch.message;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.message.MessageRoute;
import dev.relayer.api.message.RelayerMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Message types and routes registered in code, for classes that cannot carry {@link RelayerMessage}
 * (a library's event, a class shared with other code) or whose route depends on the event. A
 * registration wins over the class's annotation.
 *
 * <pre>{@code
 * MessageTypes types = MessageTypes.builder()
 *     .register(OrderPlaced.class, "order.placed",
 *         e -> MessageRoute.to("kafka", "orders").orderedBy(e.orderId()))
 *     .register(PaymentTaken.class, "payment.taken") // route from the annotation or at enqueue
 *     .build();
 * Relayer.builder(dataSource).serializer(serializer).messageTypes(types) ...
 * }</pre>
 *
 * A registration applies to its class and to subclasses that have neither a registration nor an
 * annotation of their own. Immutable and thread-safe.
 */
public final class MessageTypes {

  private static final MessageTypes NONE = new MessageTypes(Map.of());

  private final Map<Class<?>, Registration<?>> registrations;

  private MessageTypes(Map<Class<?>, Registration<?>> registrations) {
    this.registrations = Map.copyOf(registrations);
  }

  /** No registration: every message type comes from {@link RelayerMessage}. */
  public static MessageTypes none() {
    return NONE;
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The registration of exactly {@code type}, if any. */
  public Optional<Registration<?>> registration(Class<?> type) {
    return Optional.ofNullable(registrations.get(type));
  }

  /**
   * One registered class.
   *
   * @param type the class
   * @param messageType its stable message type
   * @param route its route from an instance; {@code null} when the route comes from the annotation
   *     or from the call
   * @param <E> the class
   */
  public record Registration<E>(
      Class<E> type, String messageType, @Nullable Function<? super E, MessageRoute> route) {

    /** The route of {@code event}, an instance of {@link #type()}; null without a route. */
    public @Nullable MessageRoute routeOf(Object event) {
      return route == null ? null : route.apply(type.cast(event));
    }
  }

  /** Builds {@link MessageTypes}; {@link #build()} lists every problem at once. */
  public static final class Builder {
    private final Map<Class<?>, Registration<?>> registrations = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();
    private int calls;

    private Builder() {}

    /**
     * Registers {@code type} under {@code messageType}; its route comes from its {@link
     * RelayerMessage} annotation or from the call ({@code enqueue(dsl, event, route)}).
     */
    public <E> Builder register(Class<E> type, String messageType) {
      return add(type, messageType, null, false);
    }

    /**
     * Registers {@code type} under {@code messageType}, routed by {@code route}, which is given
     * each event at enqueue and must not return null.
     */
    public <E> Builder register(
        Class<E> type, String messageType, Function<? super E, MessageRoute> route) {
      return add(type, messageType, route, true);
    }

    private <E> Builder add(
        @Nullable Class<E> type,
        @Nullable String messageType,
        @Nullable Function<? super E, MessageRoute> route,
        boolean routeRequired) {
      int index = ++calls;
      String what = type == null ? "registration " + index : type.getName();
      boolean ok = true;
      if (type == null) {
        problems.add("registration " + index + ": class must not be null");
        ok = false;
      }
      if (messageType == null || messageType.isBlank()) {
        problems.add(what + ": message type must not be blank");
        ok = false;
      }
      if (routeRequired && route == null) {
        problems.add(what + ": route must not be null");
        ok = false;
      }
      if (type != null && registrations.containsKey(type)) {
        problems.add(what + ": registered twice");
        ok = false;
      }
      if (ok && type != null && messageType != null) {
        registrations.put(type, new Registration<>(type, messageType, route));
      }
      return this;
    }

    /**
     * The registrations.
     *
     * @throws InvalidInputException listing every null class, blank type, null route and class
     *     registered twice
     */
    public MessageTypes build() {
      if (!problems.isEmpty()) {
        throw new InvalidInputException(problems);
      }
      return new MessageTypes(registrations);
    }
  }
}
