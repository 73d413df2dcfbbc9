package dev.relayer.dispatch.spi;

import java.util.Locale;

/**
 * Which component sent a row and wrote its outcome, as {@link DeliveryEvent#component()} reports
 * it. Each constant has the name of the {@link PassKind} of the component's passes: a delivery
 * event of {@link #SWEEPER} belongs to a {@link PassKind#SWEEPER} pass.
 */
public enum DeliveryComponent {
  /** Direct dispatch: rows handed over after the transaction that wrote them committed. */
  DIRECT,
  /**
   * The sweeper: unordered rows whose hand-off was lost, failed rows whose backoff ended, and
   * scheduled rows once due.
   */
  SWEEPER,
  /** A lane worker: ordered rows, in key order. */
  LANE;

  /**
   * The lower-case name, for tags and logs: {@code direct}, {@code sweeper} or {@code lane} (the
   * strings events carried before this enum).
   */
  public String tag() {
    return name().toLowerCase(Locale.ROOT);
  }
}
