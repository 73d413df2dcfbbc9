package dev.relayer.store.ops;

import java.time.Instant;

/**
 * One row of the audit trail ({@code <prefix>operations}): one operator action that changed rows.
 *
 * @param id the row's id, in the order the actions began
 * @param at when the action began (the transaction time of its first change)
 * @param operator who acted: the name given to the operator API ({@code --operator}), else the OS
 *     user
 * @param operation what was done: {@code dead-replay}, {@code dead-purge}, {@code parked-retry},
 *     {@code parked-skip} or {@code parked-release} ({@link AuditOperation#text()})
 * @param filter what the action covered, as a JSON object: for dead rows the filter's fields that
 *     were set ({@code fingerprint}, {@code transport}, {@code destination}, {@code message_type},
 *     {@code tenant_id}, {@code ordering_key}, {@code reason}, {@code failed_from}, {@code
 *     failed_before}, {@code ids}), for a parked key {@code key}, for a release {@code lane} or
 *     {@code {"all":true}}
 * @param rows how many rows the action changed, counted over the batches that committed
 */
public record AuditEntry(
    long id, Instant at, String operator, String operation, String filter, long rows) {}
