package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.spi.FailureKind;
import dev.relayer.store.ClaimedMessage;
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
   * A row whose send failed; {@code reason} is {@link Sender#REJECTED} when the transport rejected
   * it for good, {@link Sender#UNKNOWN_TRANSPORT} when no transport of its name is registered,
   * {@code timed-out} when the transport call did not return within the send timeout, otherwise
   * {@code send-failed}.
   */
  public record Failure(ClaimedMessage message, String reason, String error) {

    /** Whether the row must not be retried: it goes dead (an ordered head: parks) at once. */
    public boolean permanent() {
      return Sender.REJECTED.equals(reason);
    }

    /** The failure as listeners see it classified. */
    public FailureKind kind() {
      if (permanent()) {
        return FailureKind.PERMANENT;
      }
      return Sender.TIMED_OUT.equals(reason) ? FailureKind.TIMEOUT : FailureKind.TRANSIENT;
    }
  }

  public SendOutcome {
    accepted = List.copyOf(accepted);
    failed = List.copyOf(failed);
    exhausted = List.copyOf(exhausted);
    notAttempted = List.copyOf(notAttempted);
  }
}
