package dev.relayer.store.pass;

import static dev.relayer.jooq.generated.Tables.RELAYER_IDEMPOTENCY_KEYS;
import static dev.relayer.jooq.generated.Tables.RELAYER_INBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX_DEAD;

import dev.relayer.schema.SchemaNames;
import dev.relayer.store.Lanes;
import dev.relayer.store.StoreOptions;
import dev.relayer.store.internal.Binds;
import dev.relayer.store.internal.RenderedStatement;
import dev.relayer.store.internal.StoreDsl;
import dev.relayer.store.internal.StoreJdbc;
import dev.relayer.store.internal.TransactionSettings;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * The statements of the passes of one schema and prefix, rendered once from the store's options, by
 * table and protocol: claims and completions on the outbox ({@link OutboxClaims}), the lanes'
 * ({@link LaneClaims}), the lease table ({@link LeaseTable}) and retention ({@link
 * RetentionDelete}). The pass types run them; nothing here checks an order of steps. Public (with
 * no public way to create one) only so that tests of other packages can reach the statements.
 */
public final class PassSql {

  private final OutboxClaims outbox;
  private final LaneClaims lanes;
  private final LeaseTable leases;
  private final RetentionDelete deadRetention;
  private final RetentionDelete inboxRetention;
  private final RetentionDelete keyRetention;
  private final StoreJdbc jdbc;
  private final RenderedStatement withoutFlushWait;
  private final RenderedStatement withFlushWait;

  private PassSql(StoreOptions options) {
    StoreDsl mapping = new StoreDsl(options.schema());
    this.jdbc = new StoreJdbc(mapping);
    this.outbox = new OutboxClaims(jdbc);
    this.lanes =
        new LaneClaims(
            jdbc,
            Lanes.channelOf(mapping.names().qualified(SchemaNames.OUTBOX)),
            options.laneCount());
    this.leases = new LeaseTable(jdbc);
    this.deadRetention =
        new RetentionDelete(jdbc, RELAYER_OUTBOX_DEAD, RELAYER_OUTBOX_DEAD.FAILED_AT);
    this.inboxRetention = new RetentionDelete(jdbc, RELAYER_INBOX, RELAYER_INBOX.PROCESSED_AT);
    this.keyRetention =
        new RetentionDelete(jdbc, RELAYER_IDEMPOTENCY_KEYS, RELAYER_IDEMPOTENCY_KEYS.CREATED_AT);
    this.withoutFlushWait = jdbc.render(DSL.select(TransactionSettings.NO_FLUSH_WAIT));
    this.withFlushWait = jdbc.render(DSL.select(TransactionSettings.FLUSH_WAIT));
  }

  static PassSql of(StoreOptions options) {
    return new PassSql(options);
  }

  /** Claims and completions on the outbox. */
  public OutboxClaims outbox() {
    return outbox;
  }

  /** The ordered lanes' claims, parks, next due instants and notifications. */
  public LaneClaims lanes() {
    return lanes;
  }

  /** The lease table's statements that take, renew and give up leases. */
  public LeaseTable leases() {
    return leases;
  }

  /** Retention batches of the dead table. */
  public RetentionDelete deadRetention() {
    return deadRetention;
  }

  /** Retention batches of the inbox. */
  public RetentionDelete inboxRetention() {
    return inboxRetention;
  }

  /** Retention batches of the idempotency keys. */
  public RetentionDelete keyRetention() {
    return keyRetention;
  }

  /**
   * Makes the caller's current transaction's commit not wait for the WAL flush ({@code SET LOCAL
   * synchronous_commit = off}): a pass's writes are redone by the next pass if a crash loses them.
   */
  public void commitWithoutFlushWait(DSLContext tx) {
    jdbc.call(tx, withoutFlushWait, new Binds());
  }

  /**
   * Makes the caller's current transaction's commit wait for the WAL flush again ({@code SET LOCAL
   * synchronous_commit = on}): for a pass that took a lease from another owner or created it, so
   * that the lease names its new owner before that owner sends anything.
   */
  public void commitWithFlushWait(DSLContext tx) {
    jdbc.call(tx, withFlushWait, new Binds());
  }
}
