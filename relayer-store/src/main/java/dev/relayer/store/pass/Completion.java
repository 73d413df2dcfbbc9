package dev.relayer.store.pass;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What a send made of a claim's rows, for a pass to write in one go ({@link
 * ClaimTransaction#complete}): the rows the transports accepted, the ones to try again after their
 * backoff, and the ones not to try again. Rows of the claim in none of these lists (not attempted)
 * keep their claim until it expires, or are given back with {@link ClaimTransaction#unclaim}.
 *
 * @param accepted ids of rows the transports accepted
 * @param retries rows to hold until their retry instant
 * @param buried rows not to retry: an ordered row is parked (its key holds), any other moved to the
 *     dead table
 * @param at when the buried rows failed
 */
public record Completion(
    List<Long> accepted, List<FailedSend> retries, List<Burial> buried, Instant at) {

  public Completion {
    accepted = List.copyOf(accepted);
    retries = List.copyOf(retries);
    buried = List.copyOf(buried);
    Objects.requireNonNull(at, "at");
  }

  /**
   * A row not to retry.
   *
   * @param message the claimed row
   * @param reason why, for operators (stored with a dead row)
   * @param error the last error
   */
  public record Burial(ClaimedMessage message, String reason, String error) {
    public Burial {
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(error, "error");
    }

    /** Whether the row is parked (it has an ordering key) rather than moved to the dead table. */
    public boolean parks() {
      return message.orderingKey() != null;
    }
  }

  /**
   * What a completion wrote: rows may have been taken by a newer claim after this one expired, and
   * those writes then found nothing (a lost race, not an error).
   *
   * @param deleted how many accepted rows were deleted
   * @param parked the burials that parked their row's key
   * @param dead the burials that moved their row to the dead table
   */
  public record Written(int deleted, List<Burial> parked, List<Burial> dead) {
    public Written {
      parked = List.copyOf(parked);
      dead = List.copyOf(dead);
    }
  }
}
