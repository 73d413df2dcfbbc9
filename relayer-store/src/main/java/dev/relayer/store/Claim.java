package dev.relayer.store;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Rows claimed by one statement. Every completion write (delete, failure, dead, park) for them must
 * carry {@link #token()}: a row whose claim expired and was taken by another claimer carries
 * another token, and the write then affects nothing.
 *
 * @param token the fence of this claim
 * @param expiresAt when the claim lapses and the rows become claimable again
 * @param messages the claimed rows, in id order; possibly empty
 */
public record Claim(UUID token, Instant expiresAt, List<ClaimedMessage> messages) {

  public Claim {
    messages = List.copyOf(messages);
  }

  /** Whether nothing was claimed. */
  public boolean isEmpty() {
    return messages.isEmpty();
  }
}
