package dev.relayer.dispatch.spi;

import java.util.Locale;

/**
 * How a failed send is classified, as {@link RelayerEventListener#sendFailed} reports it.
 *
 * <ul>
 *   <li>{@link #PERMANENT}: the transport rejected the message for good ({@code
 *       SendResult.rejected}, or an {@code InvalidInputException} thrown from its {@code send});
 *       the row is not retried but goes dead (an ordered head: parks) at once;
 *   <li>{@link #TIMEOUT}: the transport call did not return within {@code sendTimeout}, or the
 *       transport reported that the broker did not answer in time ({@code SendResult.timedOut});
 *       the row is retried;
 *   <li>{@link #UNAVAILABLE}: the message did not reach the broker through no fault of its own
 *       ({@code SendResult.unavailable}: no connection, a missing destination); the row is retried
 *       and the attempt is not counted;
 *   <li>{@link #TRANSIENT}: any other failure — the transport returned an error result or threw,
 *       returned the wrong number of results, the send was interrupted by shutdown, or no transport
 *       of the row's name is registered here; the row is retried.
 * </ul>
 *
 * A retried row goes dead (or parks) once it has used its {@code maxAttempts}, counting only the
 * attempts that may have been its fault: {@link #UNAVAILABLE} failures never count, and neither do
 * {@link #TIMEOUT}s while the transport fails every send (an outage).
 */
public enum FailureKind {
  /** Retried later. */
  TRANSIENT,
  /** Rejected for good: dead or parked now. */
  PERMANENT,
  /** The transport call timed out; retried later. */
  TIMEOUT,
  /** The message did not reach the broker through no fault of its own; retried, not counted. */
  UNAVAILABLE;

  /**
   * The lower-case name, for tags and logs: {@code transient}, {@code permanent}, {@code timeout},
   * {@code unavailable}.
   */
  public String tag() {
    return name().toLowerCase(Locale.ROOT);
  }
}
