package dev.relayer.dispatch.internal;

import dev.relayer.store.ClaimedMessage;
import java.util.List;

/**
 * What became of a claim's rows after the sends: accepted by the broker, failed (to retry, or to
 * bury when out of attempts), exhausted before any send (a claim expired too often), or not
 * attempted because the claim was about to lapse.
 */
public record SendOutcome(
    List<ClaimedMessage> accepted,
    List<Failure> failed,
    List<ClaimedMessage> exhausted,
    List<ClaimedMessage> notAttempted) {

  /** A row whose send failed. */
  public record Failure(ClaimedMessage message, String reason, String error) {}

  public SendOutcome {
    accepted = List.copyOf(accepted);
    failed = List.copyOf(failed);
    exhausted = List.copyOf(exhausted);
    notAttempted = List.copyOf(notAttempted);
  }
}
