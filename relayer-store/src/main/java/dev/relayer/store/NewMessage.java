package dev.relayer.store;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.TextChecks;
import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.store.internal.StoreChecks;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.NullUnmarked;
import org.jspecify.annotations.Nullable;

/**
 * A message to enqueue. Build one with {@link #builder()}; {@code build()} rejects bad input,
 * listing every problem, before anything touches the database. No text field (transport,
 * destination, type, header names and values, ordering key, tenant, idempotency key) may contain a
 * NUL character or an unpaired UTF-16 surrogate ({@link TextChecks}).
 *
 * @param messageId the message's identity, kept on every send and replay; never the nil UUID
 * @param transport name of a registered transport; not blank
 * @param destination transport-specific address (exchange/routing key, topic, subject); not blank
 * @param messageType stable type name chosen by the application (not a Java class name); not blank
 * @param headers string headers; names and values non-null
 * @param body opaque payload
 * @param orderingKey messages with the same key are delivered in enqueue (commit) order; {@code
 *     null} for unordered messages
 * @param deliverAt not delivered before this instant; {@code null} for as soon as possible; from
 *     0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z
 * @param tenantId carried through to the transport; {@code null} if unused
 * @param idempotencyKey the business request this message carries out, unique per install (schema
 *     and prefix) for the key retention: {@link RelayerStore#enqueueOnce} writes the message only
 *     if no message with this key was enqueued before, and reports a {@link
 *     EnqueueOutcome.Duplicate} otherwise; {@code null} (the default) for none. Not blank, at most
 *     {@value #MAX_IDEMPOTENCY_KEY_LENGTH} characters (code points). See {@code
 *     docs/idempotent-enqueue.md}.
 */
// The body goes to the database as it is: a copy per access would cost on every enqueue.
@SuppressWarnings("ArrayRecordComponent")
public record NewMessage(
    UUID messageId,
    String transport,
    String destination,
    String messageType,
    Map<String, String> headers,
    byte[] body,
    @Nullable String orderingKey,
    @Nullable Instant deliverAt,
    @Nullable String tenantId,
    @Nullable String idempotencyKey) {

  static final UUID NIL = new UUID(0, 0);

  /** The longest idempotency key, in characters (code points): {@value}. */
  public static final int MAX_IDEMPOTENCY_KEY_LENGTH =
      PostgreSqlOutboxSchema.MAX_IDEMPOTENCY_KEY_LENGTH;

  /** A message without an idempotency key, as before keys existed. */
  public NewMessage(
      UUID messageId,
      String transport,
      String destination,
      String messageType,
      Map<String, String> headers,
      byte[] body,
      @Nullable String orderingKey,
      @Nullable Instant deliverAt,
      @Nullable String tenantId) {
    this(
        messageId,
        transport,
        destination,
        messageType,
        headers,
        body,
        orderingKey,
        deliverAt,
        tenantId,
        null);
  }

  public NewMessage {
    List<String> problems = new ArrayList<>();
    if (messageId == null) {
      problems.add("messageId must not be null");
    } else if (NIL.equals(messageId)) {
      problems.add("messageId must not be the nil UUID");
    }
    requireText(problems, "transport", transport);
    requireText(problems, "destination", destination);
    requireText(problems, "messageType", messageType);
    if (headers == null) {
      problems.add("headers must not be null");
    } else {
      headers.forEach(
          (name, value) -> {
            if (name == null) {
              problems.add("header names must not be null");
            } else {
              TextChecks.problem("header name '" + name + "'", name).ifPresent(problems::add);
              if (value == null) {
                problems.add("header '" + name + "' must not have a null value");
              } else {
                TextChecks.problem("header '" + name + "' value", value).ifPresent(problems::add);
              }
            }
          });
    }
    if (body == null) {
      problems.add("body must not be null");
    }
    if (orderingKey != null && orderingKey.isEmpty()) {
      problems.add("orderingKey must be null (unordered) or non-empty");
    }
    TextChecks.problem("orderingKey", orderingKey).ifPresent(problems::add);
    TextChecks.problem("tenantId", tenantId).ifPresent(problems::add);
    idempotencyKeyProblem(idempotencyKey).ifPresent(problems::add);
    if (deliverAt != null) {
      StoreChecks.instantProblem("deliverAt", deliverAt).ifPresent(problems::add);
    }
    if (!problems.isEmpty()) {
      throw new InvalidInputException(problems);
    }
    headers = Map.copyOf(headers);
  }

  private static Optional<String> idempotencyKeyProblem(@Nullable String key) {
    if (key == null) {
      return Optional.empty();
    }
    if (key.isBlank()) {
      return Optional.of("idempotencyKey must be null (none) or not blank");
    }
    int length = key.codePointCount(0, key.length());
    if (length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      return Optional.of(
          "idempotencyKey is "
              + length
              + " characters long; at most "
              + MAX_IDEMPOTENCY_KEY_LENGTH
              + " are allowed");
    }
    return TextChecks.problem("idempotencyKey", key);
  }

  private static void requireText(List<String> problems, String field, String value) {
    if (value == null || value.isBlank()) {
      problems.add(field + " must not be blank");
    } else {
      TextChecks.problem(field, value).ifPresent(problems::add);
    }
  }

  /**
   * This message with {@code added} headers whose names it does not have yet; a header it has keeps
   * its value. Returns this message itself when nothing is added. Throws {@link
   * InvalidInputException} naming a header that is null or not writable.
   */
  public NewMessage withHeadersAdded(Map<String, String> added) {
    if (added == null) {
      throw new InvalidInputException("added headers must not be null");
    }
    @Nullable Map<String, String> merged = null;
    for (Map.Entry<String, String> header : added.entrySet()) {
      if (header.getKey() != null && headers.containsKey(header.getKey())) {
        continue;
      }
      if (merged == null) {
        merged = new LinkedHashMap<>(headers);
      }
      merged.put(header.getKey(), header.getValue());
    }
    if (merged == null) {
      return this;
    }
    return new NewMessage(
        messageId,
        transport,
        destination,
        messageType,
        merged,
        body,
        orderingKey,
        deliverAt,
        tenantId,
        idempotencyKey);
  }

  /**
   * This message with the idempotency key {@code key} (replacing any it had); {@code null} for
   * none. Throws {@link InvalidInputException} when the key is blank, longer than {@value
   * #MAX_IDEMPOTENCY_KEY_LENGTH} characters or not writable.
   */
  public NewMessage withIdempotencyKey(@Nullable String key) {
    return new NewMessage(
        messageId,
        transport,
        destination,
        messageType,
        headers,
        body,
        orderingKey,
        deliverAt,
        tenantId,
        key);
  }

  /** Whether this message has an ordering key. */
  public boolean ordered() {
    return orderingKey != null;
  }

  /** A new builder; the message id defaults to a random UUID. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link NewMessage}. */
  // Fields start unset and setters take what they are given: the record's constructor refuses
  // every null it cannot take, naming the field, so the builder is left out of NullAway.
  @NullUnmarked
  public static final class Builder {
    private UUID messageId;
    private String transport;
    private String destination;
    private String messageType;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private byte[] body;
    private String orderingKey;
    private Instant deliverAt;
    private String tenantId;
    private String idempotencyKey;

    private Builder() {}

    /** The message id; default a random UUID. */
    public Builder messageId(UUID messageId) {
      this.messageId = messageId;
      return this;
    }

    public Builder transport(String transport) {
      this.transport = transport;
      return this;
    }

    public Builder destination(String destination) {
      this.destination = destination;
      return this;
    }

    public Builder messageType(String messageType) {
      this.messageType = messageType;
      return this;
    }

    /** Adds one header; a later value for the same name replaces an earlier one. */
    public Builder header(String name, String value) {
      headers.put(name, value);
      return this;
    }

    /** Adds every header of {@code headers}. */
    public Builder headers(Map<String, String> headers) {
      this.headers.putAll(headers);
      return this;
    }

    public Builder body(byte[] body) {
      this.body = body;
      return this;
    }

    public Builder orderingKey(String orderingKey) {
      this.orderingKey = orderingKey;
      return this;
    }

    public Builder deliverAt(Instant deliverAt) {
      this.deliverAt = deliverAt;
      return this;
    }

    public Builder tenantId(String tenantId) {
      this.tenantId = tenantId;
      return this;
    }

    /**
     * The idempotency key: {@link RelayerStore#enqueueOnce} writes the message only if no message
     * with this key was enqueued within the key retention. Default none.
     */
    public Builder idempotencyKey(String idempotencyKey) {
      this.idempotencyKey = idempotencyKey;
      return this;
    }

    /** Validates and builds; throws {@link InvalidInputException} listing every problem. */
    public NewMessage build() {
      return new NewMessage(
          messageId == null ? UUID.randomUUID() : messageId,
          transport,
          destination,
          messageType,
          new LinkedHashMap<>(headers),
          body,
          orderingKey,
          deliverAt,
          tenantId,
          idempotencyKey);
    }
  }
}
