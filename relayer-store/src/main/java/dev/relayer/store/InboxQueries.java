package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_INBOX;
import static org.jooq.impl.DSL.insertInto;
import static org.jooq.impl.DSL.param;

import dev.relayer.jooq.generated.tables.RelayerInbox;
import dev.relayer.store.internal.Binds;
import dev.relayer.store.internal.RenderedStatement;
import dev.relayer.store.internal.StoreJdbc;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Param;

/**
 * The inbox statement every consumed message runs, rendered once per store (see {@link StoreJdbc});
 * the inbox's retention deletes are {@code RetentionDelete}'s (in the pass package).
 */
final class InboxQueries {

  private static final RelayerInbox I = RELAYER_INBOX;
  private static final Param<String> CONSUMER = param("consumer", String.class);
  private static final Param<UUID> MESSAGE_ID = param("messageId", UUID.class);

  private final StoreJdbc jdbc;
  private final RenderedStatement tryRecord;

  InboxQueries(StoreJdbc jdbc) {
    this.jdbc = jdbc;
    this.tryRecord =
        jdbc.render(
            insertInto(I, I.CONSUMER, I.MESSAGE_ID)
                .values(CONSUMER, MESSAGE_ID)
                .onConflictDoNothing());
  }

  /**
   * One insert that reports whether the pair is new. A concurrent transaction inserting the same
   * pair makes this one wait for it: duplicate if it commits, first if it rolls back.
   */
  InboxOutcome tryRecord(DSLContext dsl, String consumer, UUID messageId) {
    int inserted =
        jdbc.update(dsl, tryRecord, new Binds().set(CONSUMER, consumer).set(MESSAGE_ID, messageId));
    return inserted == 1 ? InboxOutcome.FIRST : InboxOutcome.DUPLICATE;
  }
}
