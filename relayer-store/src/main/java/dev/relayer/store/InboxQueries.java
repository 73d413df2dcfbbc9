package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_INBOX;

import dev.relayer.jooq.generated.tables.RelayerInbox;
import java.util.UUID;
import org.jooq.DSLContext;

/** Every statement on the inbox table. */
final class InboxQueries {

  private static final RelayerInbox I = RELAYER_INBOX;

  private InboxQueries() {}

  /**
   * One insert that reports whether the pair is new. A concurrent transaction inserting the same
   * pair makes this one wait for it: duplicate if it commits, first if it rolls back.
   */
  static InboxOutcome tryRecord(DSLContext dsl, String consumer, UUID messageId) {
    int inserted =
        dsl.insertInto(I, I.CONSUMER, I.MESSAGE_ID)
            .values(consumer, messageId)
            .onConflictDoNothing()
            .execute();
    return inserted == 1 ? InboxOutcome.FIRST : InboxOutcome.DUPLICATE;
  }
}
