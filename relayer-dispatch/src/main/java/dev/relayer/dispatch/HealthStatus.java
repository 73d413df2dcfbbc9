package dev.relayer.dispatch;

/** Health, the worst verdict of {@link RelayerHealth}'s rules. */
public enum HealthStatus {
  /** No rule reached its first threshold. */
  HEALTHY,
  /**
   * A rule reached its first threshold but none its second: eligible backlog from {@code
   * degradedAt}, oldest eligible age from {@code ageDegradedAt}, or a transport failing every send.
   */
  DEGRADED,
  /**
   * Eligible backlog at or above {@code unhealthyAt}, or oldest eligible age from {@code
   * ageUnhealthyAt}.
   */
  UNHEALTHY
}
