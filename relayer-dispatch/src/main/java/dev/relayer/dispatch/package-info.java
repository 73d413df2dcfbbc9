/**
 * Delivery: {@link dev.relayer.dispatch.RelayerDispatcher} (direct dispatch after commit), {@link
 * dev.relayer.dispatch.RelayerMaintenance} (sweeper and cleanup), {@link
 * dev.relayer.dispatch.RelayerLanes} (ordered lanes), {@link dev.relayer.dispatch.RelayerOperator}
 * (parked keys), {@link dev.relayer.dispatch.RelayerHealth}, and their options. This page covers
 * unordered rows; the protocol of ordered lanes is written up in {@code
 * dev.relayer.dispatch.internal.lane}.
 *
 * <h2>Claims</h2>
 *
 * A row is sent only under a claim: a fresh random token and an expiry ({@code claimDuration} from
 * the claimer's clock), stamped by one statement that also counts the attempt. Only rows that are
 * pending, due ({@code deliver_at} null or reached) and not under a live claim ({@code
 * claim_expires_at} null or reached) can be claimed; rows another transaction has locked are
 * skipped. Every completion carries the token in its {@code WHERE} clause: deleting a sent row,
 * recording a failure, moving to the dead table, parking. If the claim expired and another claimer
 * took the row, the completion changes nothing (a lost race, reported as a count) and the row is
 * sent again by its new claimer — delivery is at least once.
 *
 * <h2>Failures</h2>
 *
 * A send the transport rejects for good ({@code SendResult.rejected}, or an {@code
 * InvalidInputException} thrown from {@code send} for its batch) is not retried: the row moves to
 * the dead table at once with reason {@code rejected} and the transport's error (an ordered head is
 * parked at once). A dispatcher also refuses, at enqueue, a message its transport reports it can
 * never carry ({@code Transport.problems}); see {@link dev.relayer.dispatch.RelayerDispatcher}.
 *
 * <p>A failed send keeps the token and sets {@code claim_expires_at} to the retry instant: the
 * claim pair doubles as the retry hold, so a row in backoff is simply "under a live claim". The
 * delay after attempt n is drawn between half and all of {@code min(backoffMax, backoffInitial ·
 * 2^(n-1))}. A row that has used {@code maxAttempts} claims moves to the dead table with reason
 * {@code max-attempts} (or {@code unknown-transport}) and an error fingerprint; an ordered head is
 * parked instead. Claims that expire without an answer count as attempts, so a message that crashes
 * its sender ends dead after {@code maxAttempts} claims instead of looping forever. (Not so on
 * ordered lanes: a lane pass commits its claims with their outcomes, so a crash rolls the attempt
 * back too.)
 *
 * <h2>Leases</h2>
 *
 * Leases live in {@code <prefix>leases} and use only the database clock. A job runs its pass in one
 * transaction that first locks its lease row ({@code FOR UPDATE SKIP LOCKED}): it proceeds only if
 * it already owns the lease or the lease has expired, and keeps the row locked until the pass
 * commits or rolls back. Consequences:
 *
 * <ul>
 *   <li>two owners never run passes at once, even when a lease expires in the middle of a long
 *       pass: the second finds the row locked and skips its turn;
 *   <li>the expiry is pushed to {@code clock_timestamp() + leaseDuration} at the end of each pass,
 *       in the same commit as the pass's work; an idle owner renews on its next pass;
 *   <li>a crashed owner's lease lapses after at most {@code leaseDuration}, then any instance takes
 *       it over; a gracefully closed owner deletes its lease row so another takes over at once;
 *   <li>owners are unique identities ({@code host/pid/random} by default).
 * </ul>
 *
 * <h2>Sweep traversal</h2>
 *
 * The sweeper's pass claims at most {@code batchSize} pending unordered rows, in id order, that are
 * due, not under a live claim and older than {@code recoveryDelay} by {@code created_at}. It walks
 * by keyset: the end of a traversal is the highest pending unordered id captured when it began, the
 * cursor advances to the last id claimed, and an empty page wraps the traversal to the start.
 * Traffic arriving during a traversal lands above its end, so it cannot starve retries, newly due
 * schedules or expired claims behind the cursor. Claims, completions and the lease renewal commit
 * together with the pass: a crash or error before the commit rolls all of them back (a send that
 * happened in the rolled-back pass is repeated by a later one). Because nothing outside the pass
 * could ever see a claim stamp written inside it, the sweeper's claim is the row lock alone ({@code
 * SELECT … FOR UPDATE SKIP LOCKED}, no {@code UPDATE}): direct dispatch and other claimers skip the
 * locked rows until the pass ends; sent rows are deleted by id, and the rows that were not sent get
 * the claim's token, expiry and attempt before their failure, hold or move to the dead table is
 * written — the same end state a stamped claim leaves, without writing a new version of every row
 * it sends. The traversal state is in memory; a new leader starts from the beginning. A pass that
 * claimed a full {@code batchSize} page and sent all of it is followed at once by the next, so a
 * backlog (a burst that overflowed the hand-off queue, an outage's worth of rows) drains at the
 * sweeper's full rate; any other pass waits {@code sweepInterval} before the next, so an idle or
 * failing sweeper stays quiet; cleanup runs after a sweep when {@code cleanupInterval} has passed,
 * under its own lease.
 *
 * <h2>Connections</h2>
 *
 * A pass uses one connection for its transaction and never waits for a second one while holding it,
 * so a one-connection pool works. Direct dispatch claims and completes in two short transactions
 * and holds no connection while it sends.
 *
 * <h2>Lifecycle</h2>
 *
 * Every component is {@link java.lang.AutoCloseable} with an idempotent {@code start()}; {@code
 * close()} is safe before start and twice, stops taking work, waits up to its {@code
 * shutdownTimeout} for in-flight work, then releases the leases it holds. Threads are named {@code
 * relayer-<store>-<component>-N}, are daemons, and are owned and stopped by the library.
 */
package dev.relayer.dispatch;
