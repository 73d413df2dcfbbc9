package dev.relayer.jackson;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.MessageSerializer;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link MessageSerializer} that writes and reads JSON ({@code application/json}, UTF-8) with
 * Jackson 3 ({@code tools.jackson}).
 *
 * <pre>{@code
 * Relayer.builder(dataSource).serializer(JacksonMessageSerializer.create()) ...
 * }</pre>
 *
 * {@link #create()} uses a {@link JsonMapper} with Jackson's defaults and the modules found on the
 * class path; {@link #of(ObjectMapper)} uses the application's mapper (under Spring Boot the
 * starter passes Boot's {@code JsonMapper}, so {@code spring.jackson.*} applies). A failure to
 * serialize (an empty bean, a getter that throws, a cycle) surfaces as Jackson's exception, which
 * Relayer reports at enqueue with the object's class. Thread-safe.
 */
public final class JacksonMessageSerializer implements MessageSerializer {

  /** The content type of every body: {@value}. */
  public static final String CONTENT_TYPE = "application/json";

  private final ObjectMapper mapper;

  private JacksonMessageSerializer(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** A serializer over a {@link JsonMapper} with Jackson's defaults and the discovered modules. */
  public static JacksonMessageSerializer create() {
    return new JacksonMessageSerializer(JsonMapper.builder().findAndAddModules().build());
  }

  /**
   * A serializer over {@code mapper}, which must write JSON.
   *
   * @throws InvalidInputException when {@code mapper} is null
   */
  public static JacksonMessageSerializer of(ObjectMapper mapper) {
    if (mapper == null) {
      throw new InvalidInputException("mapper must not be null");
    }
    return new JacksonMessageSerializer(mapper);
  }

  /** {@value #CONTENT_TYPE}. */
  @Override
  public String contentType() {
    return CONTENT_TYPE;
  }

  @Override
  public byte[] serialize(Object message) {
    return mapper.writeValueAsBytes(message);
  }

  @Override
  public <T> T deserialize(byte[] body, Class<T> type) {
    return mapper.readValue(body, type);
  }
}
