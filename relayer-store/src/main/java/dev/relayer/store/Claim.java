package dev.relayer.store;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Rows claimed by one statement. Every completion write (delete, failure, dead, park) for them must
 * carry {@link #token()}: a row whose claim expired and was taken by another claimer carries
 * another token, and the write then affects nothing.
 *
 * <p>A claim made by {@link RelayerStore#lockPage} is {@linkplain #lockedOnly() held by row locks
 * only}: its rows carry no token until {@link RelayerStore#stampLocked} writes it, and it is valid
 * only in the transaction that made it.
 *
 * @param token the fence of this claim
 * @param expiresAt when the claim lapses and the rows become claimable again
 * @param messages the claimed rows, in id order; possibly empty
 * @param lockedOnly whether the rows are held by the claiming transaction's row locks rather than
 *     stamped with the token
 */
public record Claim(
    UUID token, Instant expiresAt, List<ClaimedMessage> messages, boolean lockedOnly) {

  public Claim {
    messages = List.copyOf(messages);
  }

  /** A claim whose rows are stamped with {@code token}. */
  public Claim(UUID token, Instant expiresAt, List<ClaimedMessage> messages) {
    this(token, expiresAt, messages, false);
  }

  /** Whether nothing was claimed. */
  public boolean isEmpty() {
    return messages.isEmpty();
  }
}
