package dev.relayer.store;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * An outbox row under a claim, as the claim statement returned it.
 *
 * @param id outbox id
 * @param messageId the message's identity
 * @param transport transport name
 * @param destination transport-specific address
 * @param messageType stable type name
 * @param headers string headers
 * @param body payload
 * @param orderingKey ordering key or {@code null}
 * @param lane lane or {@code null} (unordered)
 * @param tenantId tenant or {@code null}
 * @param attempts claims so far, including this one
 * @param createdAt when the row was written (database clock)
 * @param lastError the previous failure, or {@code null}
 * @param deliverAt when the row was scheduled to become due, or {@code null} (due when written)
 */
public record ClaimedMessage(
    long id,
    UUID messageId,
    String transport,
    String destination,
    String messageType,
    Map<String, String> headers,
    byte[] body,
    @Nullable String orderingKey,
    @Nullable Integer lane,
    @Nullable String tenantId,
    int attempts,
    Instant createdAt,
    @Nullable String lastError,
    @Nullable Instant deliverAt) {

  /** This row as it reads after {@code extra} more attempts were charged to it. */
  public ClaimedMessage withMoreAttempts(int extra) {
    return new ClaimedMessage(
        id,
        messageId,
        transport,
        destination,
        messageType,
        headers,
        body,
        orderingKey,
        lane,
        tenantId,
        attempts + extra,
        createdAt,
        lastError,
        deliverAt);
  }

  /**
   * Whether the row was scheduled past its own {@code created_at}: not due when its transaction
   * began, so direct dispatch had nothing to send and the sweeper delivers it by design.
   */
  public boolean scheduledAfterWrite() {
    return deliverAt != null && deliverAt.isAfter(createdAt);
  }
}
