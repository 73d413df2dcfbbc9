package dev.relayer.api.spi;

/**
 * Turns a typed message into a body and back. The {@code relayer-jackson} module provides a JSON
 * implementation; any other format (Protobuf, Avro, Jackson 2) is a small class implementing this.
 *
 * <p>Implementations are thread-safe. {@link #serialize} runs inside the application's transaction,
 * before anything is written: a failure there refuses the message, and the transaction holds no row
 * of it.
 */
public interface MessageSerializer {

  /**
   * The MIME type of the bodies this serializer writes, for example {@code application/json}; sent
   * as the message's {@code content-type} header.
   */
  String contentType();

  /**
   * The body of {@code message}.
   *
   * @param message the object to serialize; never null
   * @return the body; never null
   * @throws RuntimeException when the object cannot be serialized; Relayer reports it with the
   *     object's class and refuses the message
   */
  byte[] serialize(Object message);

  /**
   * The object of {@code type} that {@code body} holds, for consumers.
   *
   * @param body a body {@link #serialize} wrote
   * @param type the class to read
   * @return the object; never null
   * @throws RuntimeException when the body cannot be read as {@code type}
   */
  <T> T deserialize(byte[] body, Class<T> type);
}
