package dev.relayer.dispatch.spi;

import java.util.Locale;

/** Which component ran a pass, as {@link RelayerEventListener#passFinished} reports it. */
public enum PassKind {
  /** Direct dispatch: one claim of handed-over ids, its sends and its completion. */
  DIRECT,
  /** One sweeper pass, whether or not this instance held the sweeper lease. */
  SWEEP,
  /** One lane pass over one or more lanes (passes that only renew leases are not reported). */
  LANE,
  /** One cleanup run: its retention batches until drained, out of budget, stopped or not leader. */
  CLEANUP;

  /** The lower-case name, for tags and logs: {@code direct}, {@code sweep}, {@code lane}, … */
  public String tag() {
    return name().toLowerCase(Locale.ROOT);
  }
}
