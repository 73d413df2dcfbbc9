package dev.relayer.inbox;

import java.util.Objects;

/**
 * What {@link InboxGuard} did with one delivery, and so what the caller tells the broker: {@link
 * Processed} and {@link Duplicate} are acknowledged, {@link Failed} is given back for redelivery,
 * {@link Unreadable} is refused without redelivery (it never can be guarded).
 */
public sealed interface InboxResult {

  /** Whether the caller acknowledges the delivery: after a commit, or for a duplicate. */
  boolean acknowledge();

  /** The first delivery of the message id: the handler ran and its transaction committed. */
  record Processed() implements InboxResult {
    @Override
    public boolean acknowledge() {
      return true;
    }
  }

  /** The message id was in the inbox already: the handler did not run, nothing was written. */
  record Duplicate() implements InboxResult {
    @Override
    public boolean acknowledge() {
      return true;
    }
  }

  /**
   * The handler or the transaction failed: the inbox record and the handler's work were rolled
   * back, and the delivery must come again.
   *
   * @param cause what the handler threw, or the commit's failure
   */
  record Failed(Exception cause) implements InboxResult {
    public Failed {
      Objects.requireNonNull(cause, "cause");
    }

    @Override
    public boolean acknowledge() {
      return false;
    }
  }

  /**
   * The delivery carries no Relayer message id (or one that is not a UUID), so it cannot be
   * guarded: nothing was written and the handler did not run. Adapters refuse it without redelivery
   * (RabbitMQ {@code basic.reject} without requeue, JetStream {@code term}, Kafka skips it), so
   * that it does not come back forever.
   *
   * @param reason what was wrong with it
   */
  record Unreadable(String reason) implements InboxResult {
    public Unreadable {
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public boolean acknowledge() {
      return false;
    }
  }
}
