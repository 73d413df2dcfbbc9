/**
 * {@link dev.relayer.store.RelayerStore}: the application's face of Relayer's tables — enqueue, the
 * inbox, the schema checks and the lanes' channel — on the {@link org.jooq.DSLContext} the caller
 * passes.
 *
 * <h2>Packages</h2>
 *
 * The store is split by concern, each package's SQL classes named for their table or protocol:
 *
 * <ul>
 *   <li>{@code dev.relayer.store} (this package): the face, the enqueue ({@code OutboxInserts}) and
 *       the inbox ({@code InboxQueries}).
 *   <li>{@link dev.relayer.store.pass}: Relayer's background passes, one type per protocol, and the
 *       statements they own ({@code OutboxClaims}, {@code LaneClaims}, {@code LeaseTable}, {@code
 *       RetentionDelete}); for {@code relayer-dispatch} only.
 *   <li>{@link dev.relayer.store.ops}: an operator's reads and actions on parked keys and dead rows
 *       ({@link dev.relayer.store.ops.StoreOperations}), each action writing its own audit row.
 *   <li>{@link dev.relayer.store.health}: the reads behind health checks, meters and status ({@link
 *       dev.relayer.store.health.HealthReads}).
 *   <li>{@link dev.relayer.store.schema}: the schema checks and the drift report.
 *   <li>{@link dev.relayer.store.internal}: the rendering machinery the others share (name mapping,
 *       statements rendered once, binds, the outbox's shared conditions, key locks, the move to the
 *       dead table); nothing there is for applications.
 * </ul>
 *
 * The face never imports the pass package, and no application-facing module reaches the pass or
 * internal packages (a build rule checks both).
 *
 * <h2>Names</h2>
 *
 * The generated classes carry the schema {@code relayer} and the prefix {@code relayer_}. The store
 * derives, per call, a configuration from the caller's with a render mapping to the configured
 * schema and a regular-expression table mapping to the configured prefix (escaped as a replacement
 * string), and with quoting forced on; the connection, and so the transaction, stay the caller's. A
 * statement that meets a missing table or column (SQLState 42P01, 42703, 3F000) fails with a {@link
 * dev.relayer.api.SchemaMismatchException} naming the table Relayer expected; {@link
 * dev.relayer.store.RelayerStore#verifySchema} checks every table and column and the lane key index
 * up front (and names an install at schema version 1, which lacks the operations table, or at
 * version 2, which lacks the lane key index, with the upgrade to run). {@link
 * dev.relayer.store.RelayerStore#findDrift} compares every column, constraint and index with the
 * current schema script, applied as temporary tables in a rolled-back transaction ({@link
 * dev.relayer.store.schema.SchemaDrift}).
 *
 * <h2>Audit trail</h2>
 *
 * {@code <prefix>operations} holds one row per operator action that changed rows ({@link
 * dev.relayer.store.ops.AuditEntry}). Every action of {@link dev.relayer.store.ops.StoreOperations}
 * writes its row itself, in the transaction of its change, and a replay or purge run in batches
 * ({@link dev.relayer.store.ops.DeadRun}) raises the count of its one row in each batch's
 * transaction, so a row and its count never claim more than committed, and no action changes parked
 * keys or dead rows without one.
 *
 * <h2>Statements rendered once</h2>
 *
 * The statements every message or pass runs — the enqueue insert and key locks, the claims by ids
 * and by page, the sweeper's page lock, the completing deletes, the lane claim and the other lane
 * statements, the lease statements and the transaction settings of a background pass ({@code
 * synchronous_commit}, {@code plan_cache_mode}) — are written as typed jOOQ DSL like the rest, with
 * named parameters ({@code DSL.param}) for what changes per call. The store renders each once, with
 * the same mapping, and runs it over JDBC on the connection of the caller's {@code DSLContext}
 * ({@code connectionResult}), binding values by parameter name. jOOQ would build, render and bind
 * the query anew on every execution, which measured as most of the CPU Relayer spent per message;
 * the constant text also lets the driver keep each statement prepared on the server. Failures are
 * translated as on jOOQ's path; the caller's execute listeners and statement settings do not apply
 * to these statements. Inserts are rendered per shape (optional columns written, rows, at most 100
 * per statement), key locks per count and lane notifications per number of payloads, on first use.
 * Status values in these statements are literals, so that a generic plan can use the partial
 * indexes on {@code status}. Where a pass would otherwise wait for one round trip after another,
 * statements are joined: a background pass's settings and the usual case of taking its lease (or
 * leases: a lane pass may serve several lanes) are one statement ({@link
 * dev.relayer.store.pass.Passes#sweep}, {@link dev.relayer.store.pass.Passes#lanes}), and so are a
 * lane pass's lease renewals and its lanes' next due instants ({@link
 * dev.relayer.store.pass.LanePass#end(java.util.Set, java.time.Instant)}).
 *
 * <h2>Where the statements live</h2>
 *
 * Each class of statements holds one table's, except where a statement spans two (the move to and
 * the replay from the dead table). The outbox's statements are split by protocol: {@code
 * OutboxInserts} — the enqueue; {@code OutboxClaims} — the claims by ids and by page, the sweeper's
 * page lock and the traversal's bounds, the completing writes; {@code LaneClaims} — the lane claim,
 * its give-back, the due checks, the lane notifications and the park of a head; {@code
 * ParkedKeyQueries}, {@code OutboxHealthQueries} and {@code BacklogQueries} — the operator's and
 * the health checks' reads and the parked-key actions. The first three hold every statement a
 * message or a pass runs, all rendered once; the others are built per call, at an operator's or a
 * health probe's pace. The other tables: {@code LeaseTable} (rendered once) with {@code
 * LeaseReads}, {@code InboxQueries} (rendered once), {@code RetentionDelete} for retention, {@code
 * OutboxDeadQueries} (the dead table's operator writes) with {@code DeadRowQueries} (its reads),
 * {@code AuditQueries}. Every variable is a jOOQ {@code Param<T>} bound through {@code Binds},
 * which checks each name and type.
 *
 * <h2>Ordered writes</h2>
 *
 * An ordered message's lane is {@code floorMod(crc32(utf8(key)), laneCount)} (see {@link
 * dev.relayer.store.Lanes}). Before inserting, the writer takes a transaction-scoped advisory lock
 * on (store, key hash), in ascending order when a batch has several keys: a second transaction
 * writing the same key waits until the first commits or rolls back, so within a key, id order is
 * commit order.
 *
 * <h2>Lane claims</h2>
 *
 * {@link dev.relayer.store.pass.LanePass#claim} is one statement over one or more lanes: per key of
 * those lanes, the head (lowest pending id; keys with a parked row are skipped) if it is pending,
 * due and not under a live claim or retry hold, oldest heads first; on the transports the claim
 * names also the consecutive due rows after it bound for the same destination (a run). It finds the
 * heads through the pending index and the lane-key index of schema version 3, reading about the
 * rows it claims rather than the lanes' backlogs. Rows are locked {@code FOR UPDATE SKIP LOCKED},
 * and per key only the unbroken prefix of locked rows is claimed, so a row is never claimed while
 * an earlier row of its key is neither claimed with it nor gone. {@link
 * dev.relayer.store.pass.ClaimTransaction#unclaim} gives back claimed rows that were not sent and
 * refunds their attempt. An enqueue never calls {@code pg_notify}: a transaction that notified
 * takes a database-wide lock when it commits, so notifying inside the application's transaction
 * would serialize its commits. {@link dev.relayer.store.pass.Passes#notifyLanes} sends a set of
 * lanes on {@link dev.relayer.store.RelayerStore#laneChannel()} as comma-separated lane numbers,
 * split into payloads of at most {@link dev.relayer.store.Lanes#MAX_PAYLOAD_BYTES} bytes, in one
 * statement; the dispatcher calls it after commit from a transaction of its own.
 *
 * <h2>Fenced writes</h2>
 *
 * Every write to a claimed row carries the claim token; every write to a lease carries its owner.
 * Each returns how many rows it changed: fewer than asked is a lost race, returned as a value; more
 * than asked cannot happen and throws {@link java.lang.IllegalStateException}.
 *
 * <h2>Locked claims</h2>
 *
 * {@link dev.relayer.store.pass.SweepPass#lockPage} selects the rows of a keyset page {@code FOR
 * UPDATE SKIP LOCKED} and writes nothing: for a caller whose claim and completion commit in one
 * transaction, where a stamp could never be seen outside it. It returns a {@link
 * dev.relayer.store.pass.Claim.Locked}. The row locks fence the rows instead of the token; its
 * completion ({@link dev.relayer.store.pass.ClaimTransaction#complete}) first writes the token,
 * expiry and attempt on the rows that were not sent, after which the token-fenced writes apply to
 * them as to any claim, and deletes the sent rows by id. Both statements take a {@code
 * Claim.Locked} (a stamped claim does not compile there) and refuse ids outside the claim.
 *
 * <h2>Dead rows</h2>
 *
 * The operator's statements on the dead table ({@link
 * dev.relayer.store.ops.StoreOperations#deadRows}, {@link
 * dev.relayer.store.ops.StoreOperations#deadGroups}, {@link dev.relayer.store.ops.DeadRun#replay},
 * {@link dev.relayer.store.ops.DeadRun#purge}) are built per call with jOOQ, since their filters
 * vary and they run at an operator's pace. A replay or purge works in keyset pages ({@link
 * dev.relayer.store.ops.DeadPage}): it reads the ids of the page's rows without locking them, then
 * acts on those ids, skipping rows another transaction holds ({@code FOR UPDATE SKIP LOCKED}), so
 * that concurrent operators never move or delete a row twice and never wait for each other's rows.
 * A replay page is one transaction: it takes the page's ordering keys' advisory locks — the
 * enqueue's, in the same ascending order — and then deletes the rows from the dead table and
 * inserts them into the outbox in one statement, whose {@code INSERT … SELECT … ORDER BY id} draws
 * the new ids in dead-id order. With the key lock held, no writer of the key (an enqueue or another
 * replay) commits between the replay's id and its commit, so id order stays commit order within a
 * key, which the lanes rely on; the replayed rows of a key come after every row of the key already
 * there. Since a replay of a key waits for that lock, two replays never move rows of one key out of
 * their order: each page takes the lowest dead ids left.
 *
 * <h2>Inbox</h2>
 *
 * {@link dev.relayer.store.RelayerStore#tryRecordInbox} is a single {@code INSERT … ON CONFLICT DO
 * NOTHING} in the consumer's transaction: the record commits or rolls back with the consumer's
 * work. A concurrent transaction recording the same id waits for the first and then sees a
 * duplicate. Cleanup deletes records older than the inbox retention, after which an old id would be
 * processed again: keep the retention above the longest delay with which a message can be
 * redelivered.
 */
@NullMarked
package dev.relayer.store;

import org.jspecify.annotations.NullMarked;
