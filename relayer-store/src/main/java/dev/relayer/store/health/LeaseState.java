package dev.relayer.store.health;

import java.time.Instant;

/**
 * A lease row as the database holds it.
 *
 * @param name lease name
 * @param owner current or last owner
 * @param expiresAt when it lapses (database clock)
 */
public record LeaseState(String name, String owner, Instant expiresAt) {}
