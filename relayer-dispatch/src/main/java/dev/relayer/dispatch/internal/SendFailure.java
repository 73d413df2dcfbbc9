package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.spi.FailureKind;

/**
 * Why a send of a row failed, as the {@link Sender} sorts it (its class documentation says when
 * each applies); listeners see the coarser {@link #kind()}.
 */
public enum SendFailure {
  /**
   * The transport rejected the message for good ({@code SendResult.rejected}, or an {@code
   * InvalidInputException} thrown from its {@code send}): the row is not retried.
   */
  REJECTED,
  /** Any other failure the transport returned or threw, or a send cut short by shutdown. */
  SEND_FAILED,
  /**
   * The transport call did not return within the send timeout, or the transport reported that the
   * broker did not answer in time ({@code SendResult.timedOut}).
   */
  TIMED_OUT,
  /**
   * The message did not reach the broker through no fault of its own ({@code
   * SendResult.unavailable}): its attempt is given back.
   */
  UNAVAILABLE,
  /** No transport of the row's name is registered here. */
  UNKNOWN_TRANSPORT;

  /** Whether the row must not be retried: it goes dead (an ordered head: parks) at once. */
  public boolean permanent() {
    return this == REJECTED;
  }

  /**
   * Whether the attempt its claim counted stays counted, unless an outage gives it back: not for an
   * unavailable broker.
   */
  public boolean charged() {
    return this != UNAVAILABLE;
  }

  /** The failure as listeners see it classified. */
  public FailureKind kind() {
    return switch (this) {
      case REJECTED -> FailureKind.PERMANENT;
      case UNAVAILABLE -> FailureKind.UNAVAILABLE;
      case TIMED_OUT -> FailureKind.TIMEOUT;
      case SEND_FAILED, UNKNOWN_TRANSPORT -> FailureKind.TRANSIENT;
    };
  }
}
