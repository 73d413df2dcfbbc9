/**
 * The reads behind health checks, meters and status reports: {@link
 * dev.relayer.store.health.HealthReads} and the values it returns. Reads only.
 */
@NullMarked
package dev.relayer.store.health;

import org.jspecify.annotations.NullMarked;
