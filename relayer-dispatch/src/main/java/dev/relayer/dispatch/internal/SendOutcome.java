package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.spi.FailureKind;
import dev.relayer.store.pass.ClaimedMessage;
import java.util.List;

/**
 * What became of a claim's rows after the sends: accepted by the broker, failed (to retry, or to
 * bury when rejected for good or out of attempts), exhausted before any send (a claim expired too
 * often), or not attempted because the claim was about to lapse.
 */
public record SendOutcome(
    List<ClaimedMessage> accepted,
    List<Failure> failed,
    List<ClaimedMessage> exhausted,
    List<ClaimedMessage> notAttempted) {

  /**
   * A row whose send failed, and why. {@code charged} is whether the attempt its claim counted
   * stays counted: not for an unavailable broker, nor for any failure during an outage (see {@link
   * TransportWatch}).
   */
  public record Failure(ClaimedMessage message, SendFailure reason, String error, boolean charged) {

    /** A failure charged to the row unless its reason is not ({@link SendFailure#charged()}). */
    public Failure(ClaimedMessage message, SendFailure reason, String error) {
      this(message, reason, error, reason.charged());
    }

    /** This failure with its attempt given back: an outage, not the row's fault. */
    public Failure refunded() {
      return charged && !permanent() ? new Failure(message, reason, error, false) : this;
    }

    /** Whether the row must not be retried: it goes dead (an ordered head: parks) at once. */
    public boolean permanent() {
      return reason.permanent();
    }

    /** The failure as listeners see it classified. */
    public FailureKind kind() {
      return reason.kind();
    }
  }

  public SendOutcome {
    accepted = List.copyOf(accepted);
    failed = List.copyOf(failed);
    exhausted = List.copyOf(exhausted);
    notAttempted = List.copyOf(notAttempted);
  }
}
