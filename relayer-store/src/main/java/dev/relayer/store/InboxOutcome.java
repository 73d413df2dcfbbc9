package dev.relayer.store;

/** Whether a consumer sees a message id for the first time. */
public enum InboxOutcome {
  /** Recorded now: process the message. */
  FIRST,
  /** Recorded before (or by a concurrent transaction that committed): drop the message. */
  DUPLICATE
}
