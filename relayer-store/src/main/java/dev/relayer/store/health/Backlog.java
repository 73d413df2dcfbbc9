package dev.relayer.store.health;

import java.time.Duration;
import java.util.Optional;

/**
 * The eligible backlog at an instant: rows that are pending, due and not under a live claim.
 *
 * @param eligible how many such rows exist
 * @param oldestEligibleAge how long the oldest of them has been waiting since it became due ({@code
 *     deliver_at}, else {@code created_at}); empty when there is none
 */
public record Backlog(long eligible, Optional<Duration> oldestEligibleAge) {}
