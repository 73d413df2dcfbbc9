package dev.relayer.store.ops;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One dead row, every column.
 *
 * @param id the id it had in the outbox (the dead table keeps it)
 * @param messageId the message's identity
 * @param transport transport name
 * @param destination transport-specific address
 * @param messageType stable type name
 * @param headers string headers, as written
 * @param body the payload (a copy)
 * @param createdAt when the message was written
 * @param orderingKey ordering key, or {@code null} for an unordered message
 * @param lane its lane, or {@code null} for an unordered message
 * @param deliverAt when it was scheduled for, or {@code null}
 * @param tenantId tenant, or {@code null}
 * @param attempts attempts it used
 * @param lastError its last failure, or {@code null}
 * @param failedAt when it was moved to the dead table
 * @param reason why ({@code max-attempts}, {@code rejected}, {@code unknown-transport}, {@code
 *     operator})
 * @param fingerprint {@link dev.relayer.store.internal.ErrorFingerprint} of the error, or {@code
 *     null}
 */
// The body as the database returned it: a copy per access would cost on every row.
@SuppressWarnings("ArrayRecordComponent")
public record DeadRow(
    long id,
    UUID messageId,
    String transport,
    String destination,
    String messageType,
    Map<String, String> headers,
    byte[] body,
    Instant createdAt,
    @Nullable String orderingKey,
    @Nullable Integer lane,
    @Nullable Instant deliverAt,
    @Nullable String tenantId,
    int attempts,
    @Nullable String lastError,
    Instant failedAt,
    String reason,
    @Nullable String fingerprint) {

  public DeadRow {
    headers = Map.copyOf(headers);
    body = body.clone();
  }

  /** The payload (a copy). */
  @Override
  public byte[] body() {
    return body.clone();
  }

  /** The body as text when it is well-formed UTF-8; empty otherwise (see {@link #bodyHex()}). */
  public Optional<String> bodyText() {
    try {
      return Optional.of(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(body))
              .toString());
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
  }

  /** The body as lower-case hexadecimal digits, two per byte. */
  public String bodyHex() {
    return HexFormat.of().formatHex(body);
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof DeadRow that
        && id == that.id
        && attempts == that.attempts
        && messageId.equals(that.messageId)
        && transport.equals(that.transport)
        && destination.equals(that.destination)
        && messageType.equals(that.messageType)
        && headers.equals(that.headers)
        && Arrays.equals(body, that.body)
        && createdAt.equals(that.createdAt)
        && Objects.equals(orderingKey, that.orderingKey)
        && Objects.equals(lane, that.lane)
        && Objects.equals(deliverAt, that.deliverAt)
        && Objects.equals(tenantId, that.tenantId)
        && Objects.equals(lastError, that.lastError)
        && failedAt.equals(that.failedAt)
        && reason.equals(that.reason)
        && Objects.equals(fingerprint, that.fingerprint);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, messageId, failedAt) * 31 + Arrays.hashCode(body);
  }

  @Override
  public String toString() {
    return "DeadRow[id="
        + id
        + ", messageId="
        + messageId
        + ", transport="
        + transport
        + ", destination="
        + destination
        + ", messageType="
        + messageType
        + ", orderingKey="
        + orderingKey
        + ", reason="
        + reason
        + ", failedAt="
        + failedAt
        + ", bodyBytes="
        + body.length
        + "]";
  }
}
