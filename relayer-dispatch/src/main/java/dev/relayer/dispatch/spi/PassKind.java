package dev.relayer.dispatch.spi;

/**
 * Which component ran a pass, as {@link RelayerEventListener#passFinished} reports it.
 *
 * <p>The constants are named after the components, as {@link DeliveryComponent} names the three
 * that deliver rows ({@link #DIRECT}, {@link #SWEEPER}, {@link #LANE}), plus {@link #CLEANUP}.
 * {@link #tag()} names the pass rather than its component: it is the {@code kind} tag of the {@code
 * relayer.pass} timer, so a sweeper's pass is a {@code sweep}.
 */
public enum PassKind {
  /** Direct dispatch: one claim of handed-over ids, its sends and its completion. */
  DIRECT("direct"),
  /** One sweeper pass, whether or not this instance held the sweeper lease. */
  SWEEPER("sweep"),
  /** One lane pass over one or more lanes (passes that only renew leases are not reported). */
  LANE("lane"),
  /** One cleanup run: its retention batches until drained, out of budget, stopped or not leader. */
  CLEANUP("cleanup");

  private final String tag;

  PassKind(String tag) {
    this.tag = tag;
  }

  /**
   * The pass's name, for tags and logs: {@code direct}, {@code sweep}, {@code lane} or {@code
   * cleanup}.
   */
  public String tag() {
    return tag;
  }
}
