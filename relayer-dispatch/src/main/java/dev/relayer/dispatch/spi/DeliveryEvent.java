package dev.relayer.dispatch.spi;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One outbox row's delivery outcome, as events report it.
 *
 * @param id outbox id
 * @param messageId the message's identity
 * @param transport transport name, as the row names it (not necessarily a registered transport)
 * @param destination destination
 * @param orderingKey ordering key or {@code null}
 * @param attempts claims used so far
 * @param component who sent it and wrote its outcome: direct dispatch, the sweeper or a lane worker
 * @param createdAt the row's {@code created_at}: the database clock when the writing transaction
 *     began (PostgreSQL's {@code now()}), which is at or before its commit
 * @param deliverAt the row's {@code deliver_at}, or {@code null} when it was due when written
 */
public record DeliveryEvent(
    long id,
    UUID messageId,
    String transport,
    String destination,
    @Nullable String orderingKey,
    int attempts,
    DeliveryComponent component,
    Instant createdAt,
    @Nullable Instant deliverAt) {

  /**
   * When the row became due: {@link #deliverAt()} when it lies after {@link #createdAt()}, else
   * {@link #createdAt()}.
   */
  public Instant dueAt() {
    return deliverAt != null && deliverAt.isAfter(createdAt) ? deliverAt : createdAt;
  }
}
