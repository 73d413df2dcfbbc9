package dev.relayer.api.spi;

import java.util.Objects;

/**
 * The outcome of sending one message: accepted by the broker, or failed with an error text.
 *
 * @param error {@code null} when accepted; otherwise a short description of the failure
 */
public record SendResult(String error) {

  private static final SendResult ACCEPTED = new SendResult(null);

  /** The broker accepted the message; Relayer will delete its row. */
  public static SendResult accepted() {
    return ACCEPTED;
  }

  /** The message was not accepted; Relayer will retry it after a backoff. */
  public static SendResult failed(String error) {
    return new SendResult(Objects.requireNonNull(error, "error"));
  }

  /** The message was not accepted because of {@code cause}. */
  public static SendResult failed(Throwable cause) {
    return failed(describe(cause));
  }

  public boolean isAccepted() {
    return error == null;
  }

  /** {@code ClassName: message}, the form Relayer stores in {@code last_error}. */
  public static String describe(Throwable cause) {
    String message = cause.getMessage();
    return message == null
        ? cause.getClass().getName()
        : cause.getClass().getName() + ": " + message;
  }
}
