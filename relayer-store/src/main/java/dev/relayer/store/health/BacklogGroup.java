package dev.relayer.store.health;

import org.jspecify.annotations.Nullable;

/**
 * The outbox rows of one group of a {@link BacklogBreakdown}. Only the fields of the breakdown's
 * {@link BacklogGrouping} are set; the others are {@code null}.
 *
 * @param transport the rows' transport ({@link BacklogGrouping#TRANSPORT} and {@link
 *     BacklogGrouping#DESTINATION})
 * @param destination the rows' destination ({@link BacklogGrouping#DESTINATION})
 * @param tenantId the rows' tenant id ({@link BacklogGrouping#TENANT}); {@code null} there for rows
 *     without a tenant
 * @param counts the rows, by state
 */
public record BacklogGroup(
    @Nullable String transport,
    @Nullable String destination,
    @Nullable String tenantId,
    BacklogCounts counts) {}
