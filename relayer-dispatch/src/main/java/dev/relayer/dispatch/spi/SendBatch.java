package dev.relayer.dispatch.spi;

import java.time.Duration;
import java.util.Locale;

/**
 * One call of a transport's {@code send}: a native batch of rows to one destination.
 *
 * @param transport the transport's name (always a registered one)
 * @param destination the batch's destination, as the rows name it
 * @param size rows in the batch, at least 1
 * @param accepted rows of it the broker accepted
 * @param outcome how the call ended
 * @param duration from handing the batch to the transport until its results (or the timeout)
 */
public record SendBatch(
    String transport,
    String destination,
    int size,
    int accepted,
    Outcome outcome,
    Duration duration) {

  /** How a transport call ended. */
  public enum Outcome {
    /** Every row was accepted. */
    SUCCESS,
    /** Some rows were accepted, others failed. */
    PARTIAL,
    /** No row was accepted: every result was an error, or the call threw. */
    FAILURE,
    /** The call did not return within {@code sendTimeout}. */
    TIMEOUT;

    /** The lower-case name, for tags: {@code success}, {@code partial}, … */
    public String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
