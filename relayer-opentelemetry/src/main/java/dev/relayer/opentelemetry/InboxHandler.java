package dev.relayer.opentelemetry;

import org.jooq.DSLContext;

/** The consumer's work on a message seen for the first time, in the inbox's transaction. */
@FunctionalInterface
public interface InboxHandler {

  /**
   * Does the work; throwing rolls the transaction back, the inbox record with it.
   *
   * @param transaction the transaction that recorded the message in the inbox
   */
  void handle(DSLContext transaction) throws Exception;
}
