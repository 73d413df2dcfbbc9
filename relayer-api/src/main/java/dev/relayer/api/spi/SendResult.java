package dev.relayer.api.spi;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of sending one message: accepted by the broker, failed for now ({@link
 * #failed(String)}, retried after a backoff), or rejected for good ({@link #rejected(String)},
 * never retried).
 *
 * <p>Choose {@code rejected} only when sending the same message to the same destination again
 * cannot succeed without someone changing the message or the broker's configuration: a malformed or
 * unroutable destination, a message the broker or its client refuses as too large or invalid.
 * Anything that may pass on its own — a broker that is down, a timeout, a full queue — is {@code
 * failed}. When unsure, say {@code failed}: the row is then retried up to the dispatcher's {@code
 * maxAttempts} and still ends in the dead table (an ordered head: parked), only later.
 */
public final class SendResult {

  private static final SendResult ACCEPTED = new SendResult(null, false);

  private final @Nullable String error;
  private final boolean permanent;

  private SendResult(@Nullable String error, boolean permanent) {
    this.error = error;
    this.permanent = permanent;
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
    return new SendResult(Objects.requireNonNull(error, "error"), false);
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
    return new SendResult(Objects.requireNonNull(error, "error"), true);
  }

  /** {@link #rejected(String)} because of {@code cause}, described as {@link #describe}. */
  public static SendResult rejected(Throwable cause) {
    return rejected(describe(cause));
  }

  /** Whether the broker accepted the message. */
  public boolean isAccepted() {
    return error == null;
  }

  /** Whether the message was {@link #rejected(String) rejected for good}; false when accepted. */
  public boolean isPermanent() {
    return permanent;
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
        && Objects.equals(error, that.error);
  }

  @Override
  public int hashCode() {
    return Objects.hash(error, permanent);
  }

  @Override
  public String toString() {
    if (error == null) {
      return "SendResult[accepted]";
    }
    return (permanent ? "SendResult[rejected: " : "SendResult[failed: ") + error + "]";
  }
}
