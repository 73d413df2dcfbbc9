package dev.relayer.store.ops;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A dead row as a listing shows it: every column but the headers and the body, and the body's size.
 * {@link DeadRow} has them all.
 *
 * @param id the id it had in the outbox (the dead table keeps it)
 * @param messageId the message's identity
 * @param transport transport name
 * @param destination transport-specific address
 * @param messageType stable type name
 * @param orderingKey ordering key, or {@code null} for an unordered message
 * @param tenantId tenant, or {@code null}
 * @param attempts attempts it used
 * @param lastError its last failure, or {@code null}
 * @param failedAt when it was moved to the dead table
 * @param reason why ({@code max-attempts}, {@code rejected}, {@code unknown-transport}, {@code
 *     operator})
 * @param fingerprint {@link dev.relayer.store.internal.ErrorFingerprint} of the error, or {@code
 *     null}
 * @param bodyBytes the body's length, in bytes
 */
public record DeadRowSummary(
    long id,
    UUID messageId,
    String transport,
    String destination,
    String messageType,
    @Nullable String orderingKey,
    @Nullable String tenantId,
    int attempts,
    @Nullable String lastError,
    Instant failedAt,
    String reason,
    @Nullable String fingerprint,
    int bodyBytes) {}
