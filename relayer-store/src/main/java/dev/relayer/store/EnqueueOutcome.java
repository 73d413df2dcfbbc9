package dev.relayer.store;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * What {@link RelayerStore#enqueueOnce} did with one message: wrote it ({@link Enqueued}), or left
 * it out because a message with the same idempotency key was enqueued before ({@link Duplicate}). A
 * duplicate is an ordinary outcome, not an error: the business request it carries was already
 * turned into a message.
 */
public sealed interface EnqueueOutcome permits EnqueueOutcome.Enqueued, EnqueueOutcome.Duplicate {

  /**
   * The id of the message that carries the request: the given message's for {@link Enqueued}, the
   * first enqueue's for {@link Duplicate} (so a retried request can answer with the id it answered
   * the first time).
   */
  UUID messageId();

  /** Whether the message was left out as a duplicate. */
  default boolean duplicate() {
    return this instanceof Duplicate;
  }

  /**
   * The message was written.
   *
   * @param id its outbox id, as {@link RelayerStore#enqueue} returns it (for {@code afterCommit})
   * @param messageId its message id
   */
  record Enqueued(long id, UUID messageId) implements EnqueueOutcome {
    public Enqueued {
      Objects.requireNonNull(messageId, "messageId");
    }
  }

  /**
   * The message was not written: a message with its idempotency key was enqueued before, by an
   * earlier call, by a concurrent transaction that committed first, or earlier in the same call.
   * Nothing of this message was written.
   *
   * @param idempotencyKey the key
   * @param messageId the message id of the first enqueue with this key (that message may since have
   *     been sent, be dead, or have been replayed: the key outlives its row)
   * @param firstEnqueuedAt when the first enqueue's transaction wrote the key (its {@code now()})
   */
  record Duplicate(String idempotencyKey, UUID messageId, Instant firstEnqueuedAt)
      implements EnqueueOutcome {
    public Duplicate {
      Objects.requireNonNull(idempotencyKey, "idempotencyKey");
      Objects.requireNonNull(messageId, "messageId");
      Objects.requireNonNull(firstEnqueuedAt, "firstEnqueuedAt");
    }
  }
}
