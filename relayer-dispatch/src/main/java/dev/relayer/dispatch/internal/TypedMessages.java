package dev.relayer.dispatch.internal;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.message.MessageRoute;
import dev.relayer.api.message.OrderingKey;
import dev.relayer.api.message.RelayerMessage;
import dev.relayer.api.message.TenantId;
import dev.relayer.api.spi.MessageSerializer;
import dev.relayer.dispatch.message.MessageTypes;
import dev.relayer.dispatch.message.MessageTypes.Registration;
import dev.relayer.store.NewMessage;
import java.lang.annotation.Annotation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Turns an object into a {@link NewMessage}: its type and route from a {@link MessageTypes}
 * registration or its {@link RelayerMessage} annotation (see the {@code
 * dev.relayer.dispatch.message} package), its body from the {@link MessageSerializer}. Nothing here
 * touches the database: every refusal happens before the store writes anything.
 */
public final class TypedMessages {

  /** The header that carries the serializer's content type. */
  public static final String CONTENT_TYPE = "content-type";

  private static final ClassValue<Shape> SHAPES =
      new ClassValue<>() {
        @Override
        protected Shape computeValue(Class<?> type) {
          return Shape.of(type);
        }
      };

  private final @Nullable MessageSerializer serializer;
  private final MessageTypes types;

  /**
   * @param serializer the serializer; {@code null} when none was configured (every typed enqueue
   *     then fails, naming what to configure)
   * @param types the registrations
   */
  public TypedMessages(@Nullable MessageSerializer serializer, MessageTypes types) {
    this.serializer = serializer;
    this.types = types;
  }

  /**
   * The message for {@code event}, routed by {@code route} when given, else by its registration or
   * annotation.
   *
   * @throws InvalidInputException naming the class and what is missing or wrong
   */
  public NewMessage message(@Nullable Object event, @Nullable MessageRoute route) {
    if (event == null) {
      throw new InvalidInputException("event must not be null");
    }
    Class<?> type = event.getClass();
    String name = type.getName();
    Shape shape = SHAPES.get(type);
    @Nullable Registration<?> registration = registration(type, shape);
    String messageType;
    if (registration != null) {
      messageType = registration.messageType();
    } else if (shape.annotation != null) {
      messageType = shape.annotation.value();
    } else {
      throw new InvalidInputException(
          "cannot enqueue "
              + name
              + ": it has no message type; annotate it with @RelayerMessage(\"its.type\") or"
              + " register it with MessageTypes.builder().register("
              + type.getSimpleName()
              + ".class, \"its.type\")");
    }
    List<String> problems = new ArrayList<>();
    if (messageType.isBlank()) {
      problems.add("its message type is blank");
    }
    MessageRoute resolved = route != null ? route : route(event, registration, shape, problems);
    MessageSerializer body = serializer;
    if (body == null) {
      problems.add(
          "no MessageSerializer is configured; add relayer-jackson and give"
              + " Relayer.builder(..).serializer(JacksonMessageSerializer.create())");
    }
    if (!problems.isEmpty() || resolved == null || body == null) {
      throw refused(name, problems);
    }
    byte[] bytes;
    try {
      bytes = body.serialize(event);
    } catch (RuntimeException e) {
      InvalidInputException refused =
          new InvalidInputException(
              "cannot enqueue "
                  + name
                  + ": "
                  + body.getClass().getSimpleName()
                  + " cannot serialize it: "
                  + e.getMessage());
      refused.initCause(e);
      throw refused;
    }
    if (bytes == null) {
      throw refused(name, List.of(body.getClass().getName() + " returned a null body"));
    }
    try {
      return NewMessage.builder()
          .transport(resolved.transport())
          .destination(resolved.destination())
          .messageType(messageType)
          .header(CONTENT_TYPE, body.contentType())
          .body(bytes)
          .orderingKey(resolved.orderingKey())
          .tenantId(resolved.tenantId())
          .build();
    } catch (InvalidInputException e) {
      throw refused(name, e.problems());
    }
  }

  private static InvalidInputException refused(String name, List<String> problems) {
    List<String> named = new ArrayList<>();
    for (String problem : problems) {
      named.add("cannot enqueue " + name + ": " + problem);
    }
    return new InvalidInputException(named);
  }

  /** The class's own registration, else (without its own annotation) its nearest superclass's. */
  private @Nullable Registration<?> registration(Class<?> type, Shape shape) {
    Optional<Registration<?>> own = types.registration(type);
    if (own.isPresent()) {
      return own.get();
    }
    if (shape.annotation != null) {
      return null;
    }
    for (Class<?> up = type.getSuperclass(); up != null; up = up.getSuperclass()) {
      Optional<Registration<?>> inherited = types.registration(up);
      if (inherited.isPresent()) {
        return inherited.get();
      }
    }
    return null;
  }

  private static @Nullable MessageRoute route(
      Object event, @Nullable Registration<?> registration, Shape shape, List<String> problems) {
    if (registration != null && registration.route() != null) {
      MessageRoute route;
      try {
        route = registration.routeOf(event);
      } catch (InvalidInputException e) {
        problems.addAll(e.problems().stream().map(p -> "its registered route: " + p).toList());
        return null;
      }
      if (route == null) {
        problems.add("its registered route function returned null");
      }
      return route;
    }
    RelayerMessage annotation = shape.annotation;
    if (annotation == null
        || (annotation.transport().isEmpty() && annotation.destination().isEmpty())) {
      problems.add(
          "it has no route; give @RelayerMessage(transport = .., destination = ..), register a"
              + " route with MessageTypes, or call enqueue(dsl, event, route)");
      return null;
    }
    if (!shape.problems.isEmpty()) {
      problems.addAll(shape.problems);
      return null;
    }
    String key = shape.orderingKey == null ? null : read(event, shape.orderingKey, problems);
    if (shape.orderingKey != null && (key == null || key.isEmpty())) {
      problems.add(
          "its @OrderingKey "
              + shape.orderingKey.getName()
              + "() returned "
              + (key == null ? "null" : "an empty key")
              + "; every message of a class with an ordering key needs one");
      return null;
    }
    String tenant = shape.tenant == null ? null : read(event, shape.tenant, problems);
    if (!problems.isEmpty()) {
      return null;
    }
    return new MessageRoute(annotation.transport(), annotation.destination(), key, tenant);
  }

  private static @Nullable String read(Object event, Method accessor, List<String> problems) {
    try {
      Object value = accessor.invoke(event);
      return value == null ? null : value.toString();
    } catch (InvocationTargetException e) {
      problems.add(accessor.getName() + "() threw " + e.getCause());
    } catch (IllegalAccessException | RuntimeException e) {
      problems.add(accessor.getName() + "() cannot be called: " + e);
    }
    return null;
  }

  /** What a class's annotations say, read once per class. */
  private static final class Shape {
    final @Nullable RelayerMessage annotation;
    final @Nullable Method orderingKey;
    final @Nullable Method tenant;
    final List<String> problems;

    private Shape(
        @Nullable RelayerMessage annotation,
        @Nullable Method orderingKey,
        @Nullable Method tenant,
        List<String> problems) {
      this.annotation = annotation;
      this.orderingKey = orderingKey;
      this.tenant = tenant;
      this.problems = List.copyOf(problems);
    }

    static Shape of(Class<?> type) {
      List<String> problems = new ArrayList<>();
      RelayerMessage annotation = type.getAnnotation(RelayerMessage.class);
      if (annotation != null
          && annotation.transport().isEmpty() != annotation.destination().isEmpty()) {
        problems.add(
            "@RelayerMessage gives "
                + (annotation.transport().isEmpty() ? "a destination" : "a transport")
                + " without "
                + (annotation.transport().isEmpty() ? "a transport" : "a destination")
                + "; give both or neither");
      }
      Map<String, Method> methods = new LinkedHashMap<>();
      for (Method method : type.getMethods()) {
        methods.putIfAbsent(method.getName() + method.getParameterCount(), method);
      }
      for (Method method : type.getDeclaredMethods()) {
        methods.putIfAbsent(method.getName() + method.getParameterCount(), method);
      }
      Method key = accessor(methods.values(), OrderingKey.class, problems);
      Method tenant = accessor(methods.values(), TenantId.class, problems);
      return new Shape(annotation, key, tenant, problems);
    }

    private static @Nullable Method accessor(
        Iterable<Method> methods, Class<? extends Annotation> mark, List<String> problems) {
      List<Method> marked = new ArrayList<>();
      for (Method method : methods) {
        if (method.isAnnotationPresent(mark)) {
          marked.add(method);
        }
      }
      if (marked.isEmpty()) {
        return null;
      }
      String markName = "@" + mark.getSimpleName();
      if (marked.size() > 1) {
        problems.add(
            markName
                + " marks "
                + marked.size()
                + " methods ("
                + String.join(", ", marked.stream().map(m -> m.getName() + "()").toList())
                + "); mark one");
        return null;
      }
      Method method = marked.get(0);
      if (method.getParameterCount() != 0
          || method.getReturnType() == void.class
          || Modifier.isStatic(method.getModifiers())) {
        problems.add(
            markName
                + " "
                + method.getName()
                + " must be an instance method without parameters"
                + " that returns a value");
        return null;
      }
      if (!method.trySetAccessible()) {
        problems.add(markName + " " + method.getName() + "() is not accessible to Relayer");
        return null;
      }
      return method;
    }
  }
}
