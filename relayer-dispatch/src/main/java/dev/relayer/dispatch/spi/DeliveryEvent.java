package dev.relayer.dispatch.spi;

import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One outbox row's delivery outcome, as events report it.
 *
 * @param id outbox id
 * @param messageId the message's identity
 * @param transport transport name
 * @param destination destination
 * @param orderingKey ordering key or {@code null}
 * @param attempts claims used so far
 * @param component who sent it: {@code direct}, {@code sweeper} or {@code lane}
 */
public record DeliveryEvent(
    long id,
    UUID messageId,
    String transport,
    String destination,
    @Nullable String orderingKey,
    int attempts,
    String component) {}
