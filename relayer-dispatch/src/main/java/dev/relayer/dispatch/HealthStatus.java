package dev.relayer.dispatch;

/** Backlog health, from the eligible backlog compared with two thresholds. */
public enum HealthStatus {
  /** Eligible backlog below {@code degradedAt}. */
  HEALTHY,
  /** Eligible backlog from {@code degradedAt} up to (not including) {@code unhealthyAt}. */
  DEGRADED,
  /** Eligible backlog at or above {@code unhealthyAt}. */
  UNHEALTHY
}
