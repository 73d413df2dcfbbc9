package dev.relayer.dispatch;

/** Health, the worst verdict of {@link RelayerHealth}'s rules. */
public enum HealthStatus {
  /** No rule reached its first threshold. */
  HEALTHY,
  /**
   * A rule reached its first threshold but none its second: eligible backlog from {@code
   * degradedAt}, oldest eligible age from {@code ageDegradedAt}, failing rows from {@code
   * failingDegradedAt}, oldest failing age from {@code failingAgeDegradedAt}, a failing transport,
   * or a parked key.
   */
  DEGRADED,
  /**
   * Eligible backlog at or above {@code unhealthyAt}, oldest eligible age from {@code
   * ageUnhealthyAt}, failing rows from {@code failingUnhealthyAt}, or oldest failing age from
   * {@code failingAgeUnhealthyAt}.
   */
  UNHEALTHY
}
