package dev.relayer.store.pass;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Rows claimed by one statement. Every completion write (delete, failure, dead, park) for them must
 * carry {@link #token()}: a row whose claim expired and was taken by another claimer carries
 * another token, and the write then affects nothing.
 *
 * <p>A claim is one of two kinds, and its type says which:
 *
 * <ul>
 *   <li>{@link Stamped}: the claiming statement wrote the token and expiry on the rows (a claim by
 *       ids, a lane's heads), so the claim holds across transactions until it expires.
 *   <li>{@link Locked}: the rows are held by the claiming transaction's row locks only (a sweep
 *       pass's page); they carry no token until its completion stamps the rows it did not send, and
 *       the claim is valid only in the transaction that made it.
 * </ul>
 */
public sealed interface Claim permits Claim.Stamped, Claim.Locked {

  /** The fence of this claim. */
  UUID token();

  /** When the claim lapses and the rows become claimable again. */
  Instant expiresAt();

  /** The claimed rows, in id order; possibly empty. */
  List<ClaimedMessage> messages();

  /** Whether nothing was claimed. */
  default boolean isEmpty() {
    return messages().isEmpty();
  }

  /**
   * A claim whose rows are stamped with {@code token} and {@code expiresAt}.
   *
   * @param token the fence written on the rows
   * @param expiresAt when the claim lapses and the rows become claimable again
   * @param messages the claimed rows, in id order; possibly empty
   */
  record Stamped(UUID token, Instant expiresAt, List<ClaimedMessage> messages) implements Claim {
    public Stamped {
      messages = List.copyOf(messages);
    }
  }

  /**
   * A claim whose rows are held by the claiming transaction's row locks, not yet stamped: its
   * completion, in that transaction, stamps the rows it did not send, after which the token-fenced
   * writes apply to them.
   *
   * @param token the fence the completion writes on the rows not sent
   * @param expiresAt the expiry the completion writes on the rows not sent
   * @param messages the locked rows, in id order; possibly empty
   */
  record Locked(UUID token, Instant expiresAt, List<ClaimedMessage> messages) implements Claim {
    public Locked {
      messages = List.copyOf(messages);
    }
  }
}
