package dev.relayer.store.ops;

import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A dead row a replay moved back to the outbox.
 *
 * @param deadId the id it had in the dead table (its earlier outbox id)
 * @param outboxId its new outbox id: replayed rows get new ids, in the order of their dead ids, so
 *     an ordered row goes behind every row of its key already in the outbox
 * @param messageId the message's identity, unchanged
 * @param orderingKey its ordering key, or {@code null}
 * @param lane its lane, or {@code null} for an unordered row
 */
public record ReplayedRow(
    long deadId,
    long outboxId,
    UUID messageId,
    @Nullable String orderingKey,
    @Nullable Integer lane) {}
