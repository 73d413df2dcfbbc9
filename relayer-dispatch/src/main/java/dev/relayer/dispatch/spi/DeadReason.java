package dev.relayer.dispatch.spi;

/**
 * Why a send moved a row to the dead table, as {@link RelayerEventListener#dead} reports it. {@link
 * #tag()} is what the dead row's {@code reason} column holds, the {@code reason} tag of the {@code
 * relayer.outbox.dead} counter, and what {@code relayer dead … --reason} filters on.
 *
 * <p>Rows an operator moves to the dead table (skipping a parked head) have the reason {@code
 * operator}; no event reports them.
 */
public enum DeadReason {
  /**
   * The row used {@code maxAttempts} claims without being accepted: its sends kept failing, or it
   * was claimed that often without completing (a sender that crashed with it sent alone).
   */
  MAX_ATTEMPTS("max-attempts"),
  /**
   * The transport rejected the message for good ({@code SendResult.rejected}, or an {@code
   * InvalidInputException} thrown from its {@code send}): it went dead at once.
   */
  REJECTED("rejected"),
  /** The row names a transport that is not registered here, and it used {@code maxAttempts}. */
  UNKNOWN_TRANSPORT("unknown-transport");

  private final String tag;

  DeadReason(String tag) {
    this.tag = tag;
  }

  /**
   * The reason as stored and tagged: {@code max-attempts}, {@code rejected} or {@code
   * unknown-transport}.
   */
  public String tag() {
    return tag;
  }
}
