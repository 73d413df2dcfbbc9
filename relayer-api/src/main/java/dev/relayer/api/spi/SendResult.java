package dev.relayer.api.spi;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of sending one message: accepted by the broker, failed for now ({@link
 * #failed(String)}, retried after a backoff), not sent because the broker could not be reached
 * ({@link #unavailable(String)}, retried without counting an attempt), not answered in time ({@link
 * #timedOut(String)}), or rejected for good ({@link #rejected(String)}, never retried).
 *
 * <p>Choose {@code rejected} only when sending the same message to the same destination again
 * cannot succeed without someone changing the message or the broker's configuration: a malformed or
 * unroutable destination, a message the broker or its client refuses as too large or invalid.
 * Anything that may pass on its own — a broker that is down, a timeout, a full queue — is {@code
 * failed}. When unsure, say {@code failed}: the row is then retried up to the dispatcher's {@code
 * maxAttempts} and still ends in the dead table (an ordered head: parked), only later.
 *
 * <p>Choose {@code unavailable} when the message certainly did not reach the broker for a reason
 * that is not the message's: no connection or channel could be had, the connection was down before
 * the publish, an earlier message of the same ordered batch failed so this one was held back, or
 * the destination does not exist now but an operator can create it. An outage is not poison: such a
 * row is retried after a backoff and its attempt is given back, so a broker that is down for hours
 * never moves a row towards the dead table or parks its key. When the message may have reached the
 * broker (a timeout after the publish, a lost confirm), say {@code failed}.
 */
public final class SendResult {

  private static final SendResult ACCEPTED = new SendResult(null, false, false, false);

  private final @Nullable String error;
  private final boolean permanent;
  private final boolean unavailable;
  private final boolean timedOut;

  private SendResult(
      @Nullable String error, boolean permanent, boolean unavailable, boolean timedOut) {
    this.error = error;
    this.permanent = permanent;
    this.unavailable = unavailable;
    this.timedOut = timedOut;
  }

  /** The broker accepted the message; Relayer will delete its row. */
  public static SendResult accepted() {
    return ACCEPTED;
  }

  /**
   * The message was not accepted this time; Relayer will retry it after a backoff, and moves it to
   * the dead table (an ordered head: parks its key) once it has used {@code maxAttempts}.
   */
  public static SendResult failed(String error) {
    return new SendResult(Objects.requireNonNull(error, "error"), false, false, false);
  }

  /** {@link #failed(String)} because of {@code cause}, described as {@link #describe}. */
  public static SendResult failed(Throwable cause) {
    return failed(describe(cause));
  }

  /**
   * The message can never be sent as it is (see the class documentation): Relayer moves its row to
   * the dead table at once, with reason {@code rejected} and this error (an ordered head: parks its
   * key at once), without spending further attempts. The error should say what is wrong and name
   * the field (destination, message type, which header).
   */
  public static SendResult rejected(String error) {
    return new SendResult(Objects.requireNonNull(error, "error"), true, false, false);
  }

  /** {@link #rejected(String)} because of {@code cause}, described as {@link #describe}. */
  public static SendResult rejected(Throwable cause) {
    return rejected(describe(cause));
  }

  /**
   * The message did not reach the broker, through no fault of its own (see the class
   * documentation): Relayer retries it after a backoff and gives back the attempt its claim
   * counted, so that an outage never sends a row to the dead table or parks its key. The error
   * should say what was unavailable (which broker, which destination).
   */
  public static SendResult unavailable(String error) {
    return new SendResult(Objects.requireNonNull(error, "error"), false, true, false);
  }

  /** {@link #unavailable(String)} because of {@code cause}, described as {@link #describe}. */
  public static SendResult unavailable(Throwable cause) {
    return unavailable(describe(cause));
  }

  /**
   * The broker did not answer in time (no confirm or acknowledgement within the batch timeout): the
   * message may have reached it. Retried after a backoff like {@link #failed(String)}, and counted,
   * unless every send to the transport is failing (an outage): then the attempt is given back, so
   * that a stalled broker kills nothing however long it stalls.
   */
  public static SendResult timedOut(String error) {
    return new SendResult(Objects.requireNonNull(error, "error"), false, false, true);
  }

  /** Whether the broker accepted the message. */
  public boolean isAccepted() {
    return error == null;
  }

  /** Whether the message was {@link #rejected(String) rejected for good}; false when accepted. */
  public boolean isPermanent() {
    return permanent;
  }

  /** Whether the broker {@linkplain #timedOut(String) did not answer in time}. */
  public boolean isTimedOut() {
    return timedOut;
  }

  /** Whether the message {@linkplain #unavailable(String) did not reach the broker}. */
  public boolean isUnavailable() {
    return unavailable;
  }

  /** {@code null} when accepted; otherwise a short description of the failure. */
  public @Nullable String error() {
    return error;
  }

  /** {@code ClassName: message}, the form Relayer stores in {@code last_error}. */
  public static String describe(Throwable cause) {
    String message = cause.getMessage();
    return message == null
        ? cause.getClass().getName()
        : cause.getClass().getName() + ": " + message;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof SendResult that
        && permanent == that.permanent
        && unavailable == that.unavailable
        && timedOut == that.timedOut
        && Objects.equals(error, that.error);
  }

  @Override
  public int hashCode() {
    return Objects.hash(error, permanent, unavailable, timedOut);
  }

  @Override
  public String toString() {
    if (error == null) {
      return "SendResult[accepted]";
    }
    String kind =
        permanent ? "rejected" : unavailable ? "unavailable" : timedOut ? "timed out" : "failed";
    return "SendResult[" + kind + ": " + error + "]";
  }
}
