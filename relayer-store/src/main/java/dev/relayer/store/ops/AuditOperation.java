package dev.relayer.store.ops;

/**
 * The operator actions the audit trail ({@code <prefix>operations}) records, each stored as its
 * {@link #text()}.
 */
public enum AuditOperation {
  /** Dead rows moved back to the outbox. */
  DEAD_REPLAY("dead-replay"),
  /** Dead rows deleted. */
  DEAD_PURGE("dead-purge"),
  /** A parked head made pending again. */
  PARKED_RETRY("parked-retry"),
  /** A parked head moved to the dead rows. */
  PARKED_SKIP("parked-skip"),
  /** Every parked head of a lane, or of every lane, made pending again. */
  PARKED_RELEASE("parked-release");

  private final String text;

  AuditOperation(String text) {
    this.text = text;
  }

  /** The value of the {@code operation} column: {@code dead-replay}, {@code parked-skip}, … */
  public String text() {
    return text;
  }
}
