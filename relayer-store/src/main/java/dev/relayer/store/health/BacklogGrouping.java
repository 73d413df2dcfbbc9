package dev.relayer.store.health;

/** What {@link HealthReads#backlogBreakdown} groups the outbox rows by. */
public enum BacklogGrouping {
  /** By transport. */
  TRANSPORT,
  /** By transport and destination (a destination means something only to its transport). */
  DESTINATION,
  /** By tenant id; rows without a tenant form one group, whose tenant id is {@code null}. */
  TENANT
}
