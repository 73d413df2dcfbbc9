package dev.relayer.store.ops;

import java.time.Instant;

/**
 * An ordering key held for an operator because its head ran out of attempts.
 *
 * @param orderingKey the key
 * @param lane its lane
 * @param headId outbox id of the parked head
 * @param messageId the head's message id
 * @param attempts attempts the head has used
 * @param lastError the head's last failure
 * @param parkedAt since when the key is held
 */
public record ParkedKey(
    String orderingKey,
    int lane,
    long headId,
    java.util.UUID messageId,
    int attempts,
    String lastError,
    Instant parkedAt) {}
