/**
 * Delivery. Applications start with {@link dev.relayer.dispatch.Relayer}, the one entry point: it
 * assembles the store and the components below for one schema and prefix, starts them in order,
 * stops them in the opposite order and closes the transports it owns (its documentation has the
 * lifecycle and the ownership rules). The components stay public for setups it does not cover:
 * {@link dev.relayer.dispatch.RelayerDispatcher} (direct dispatch after commit), {@link
 * dev.relayer.dispatch.RelayerMaintenance} (sweeper and cleanup), {@link
 * dev.relayer.dispatch.RelayerLanes} (ordered lanes), {@link dev.relayer.dispatch.RelayerOperator}
 * (parked keys), {@link dev.relayer.dispatch.RelayerHealth}, and their options. This page covers
 * unordered rows; the protocol of ordered lanes is written up in {@code
 * dev.relayer.dispatch.internal.lane}.
 *
 * <h2>Why {@code Relayer} lives here</h2>
 *
 * {@code Relayer} needs the dispatch components, so it is in this module ({@code relayer-dispatch},
 * module name {@code dev.relayer.dispatch}), and in this package rather than in a shorter {@code
 * dev.relayer}: every package of the project is {@code dev.relayer.<module>}, so no package is
 * split between two jars (which JPMS forbids), and a future module may own {@code dev.relayer}
 * without moving anything; the options, reports and components an application names next to {@code
 * Relayer} are in this package already, so one import prefix serves them all.
 *
 * <h2>Who starts and closes what</h2>
 *
 * Started in this order and closed in the opposite one: the dispatcher (it holds the transports and
 * the send path), then maintenance and lanes (they send through the dispatcher, so they are closed
 * before it). No component closes a transport: {@code RelayerDispatcher#close()} leaves them open
 * for their owner. {@code Relayer} is that owner for the transports given to {@code
 * Relayer.Builder#transport}, which it closes after everything that sends through them stopped;
 * transports given to {@code Relayer.Builder#sharedTransport}, and every transport of a dispatcher
 * built by hand, are closed by whoever created them, after the dispatcher.
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
 * parked instead. Claims that expire without an answer count as attempts.
 *
 * <h2>Crashes during a send</h2>
 *
 * A message that kills the process sending it (the OOM killer on a huge body, a native crash in a
 * client library, a pod killed mid-send) ends dead — or, ordered, parks its key — after {@code
 * maxAttempts} crashes while it was sent alone, and the messages around it are delivered without
 * spending an attempt on its crashes. A crash is charged to its culprit only:
 *
 * <ul>
 *   <li>Direct dispatch commits its claim before it sends, and the claim marks its rows in flight
 *       with others ({@code ClaimedMessage.IN_FLIGHT} in {@code last_error}); every completion
 *       overwrites the mark or deletes the row, so a row that keeps it is one whose sender stopped
 *       mid-send. Such a row is <em>suspect</em>: any send of the process in flight then may have
 *       killed it.
 *   <li>The sweeper and the lanes never send a suspect row together with others: each is claimed
 *       alone (stamped, marked sent alone — {@code ClaimedMessage.SENT_ALONE} — and committed),
 *       sent and completed while the process sends nothing else (the other threads' transport calls
 *       wait for its claim, its send — at most one send timeout — and its completion), those with
 *       the fewest attempts first. The claim alone takes the interrupted claim's attempt over, so a
 *       crash with others costs no row an attempt; a crash while a row is sent alone is that row's
 *       and counts.
 *   <li>Their usual pass commits its claims with its outcomes, so a crash in it leaves nothing
 *       behind. The instance that then takes over the expired lease knows that much ({@code
 *       LeaseOutcome#takenOver}): the sweeper walks its whole traversal, and a lane its next {@code
 *       claimsPerPass} claims, committing each claim, marked in flight with others, before its
 *       send. The dead pass's rows are reached wherever they were: a further crash leaves them
 *       suspect, and from then on each is sent alone.
 * </ul>
 *
 * Such a message is therefore sent at most {@code maxAttempts} times alone, after at most two sends
 * with others that cost nothing (a pass that left no trace, then a claim committed before its
 * send); the claim after the last attempt moves it unsent, with the error {@code claimed N times
 * without completing} and the sent-alone mark as its last error. A process killed from outside (not
 * by a send) while a row is sent alone charges that row, as it would any failed attempt. A claim
 * that commits before its send (direct dispatch's, a careful step's, a claim alone) waits for its
 * WAL flush, unlike Relayer's other commits: had the server lost it in a crash, the send would have
 * gone ahead with no mark recorded. The careful traversal costs a stamp and a commit per page and
 * only follows a takeover; a suspect row costs two short transactions of its own and holds the
 * process's other sends for its send. Transient send failures overwrite the mark with their error,
 * so rows retried after a broker outage still go out in batches.
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
 * due, not under a live claim and older than {@code recoveryDelay} by {@code created_at} — or, for
 * a row whose {@code deliver_at} lies after its {@code created_at} (scheduled: not due when its
 * transaction began, so direct dispatch had nothing to send), as soon as it is due, whatever its
 * age; a scheduled unordered row therefore goes out within {@code sweepInterval} plus one pass of
 * {@code deliver_at}. A row that was already due when written waits out {@code recoveryDelay} like
 * any other. It walks by keyset: the end of a traversal is the highest pending unordered id
 * captured when it began, its start the lowest pending unordered id above the sweeper's floor, the
 * cursor advances to the last id claimed, and an empty page wraps the traversal to the start. The
 * floor is an id at or below which no unordered row is pending or can still become pending: it
 * rises to the lowest pending id one traversal found (or, when it found none, past the highest id
 * any traversal found) once every transaction that was running then has ended (a row that commits
 * later with a lower id was written by one of them), so a held xmin horizon's dead index entries
 * below it are not walked again at each traversal. Every {@code fullSweepInterval} a traversal
 * starts from id 0 again, for the writers that rule cannot see: one that drew its identity value
 * before its transaction had an id, or one behind an identity sequence given a cache. Traffic
 * arriving during a traversal lands above its end, so it cannot starve retries, newly due schedules
 * or expired claims behind the cursor. Claims, completions and the lease renewal commit together
 * with the pass: a crash or error before the commit rolls all of them back (a send that happened in
 * the rolled-back pass is repeated by a later one). Because nothing outside the pass could ever see
 * a claim stamp written inside it, the sweeper's claim is the row lock alone ({@code SELECT … FOR
 * UPDATE SKIP LOCKED}, no {@code UPDATE}): direct dispatch and other claimers skip the locked rows
 * until the pass ends; sent rows are deleted by id, and the rows that were not sent get the claim's
 * token, expiry and attempt before their failure, hold or move to the dead table is written — the
 * same end state a stamped claim leaves, without writing a new version of every row it sends. The
 * traversal state is in memory; a new leader starts from the beginning (after a takeover, careful
 * until it wraps: see above). A pass that claimed a full {@code batchSize} page and sent all of it
 * is followed at once by the next, so a backlog (a burst that overflowed the hand-off queue, an
 * outage's worth of rows) drains at the sweeper's full rate; any other pass waits {@code
 * sweepInterval} before the next, so an idle or failing sweeper stays quiet.
 *
 * <h2>Cleanup</h2>
 *
 * Cleanup runs after a sweep pass when {@code cleanupInterval} has passed, under its own lease
 * {@code cleanup}. A run deletes dead rows older than {@code deadRetention} (by {@code failed_at}),
 * inbox records older than {@code inboxRetention} (by {@code processed_at}) and idempotency keys
 * older than {@code idempotencyKeyRetention} (by {@code created_at}) in batches of {@code
 * cleanupBatchSize}, each its own short transaction that locks the lease row and restarts its
 * expiry, deletes and commits; the tables take turns. A table is done when a batch comes back
 * short. The run stops when all are done, when {@code cleanupBudget} has passed, on shutdown, or
 * when another owner holds the lease. A run that drained waits {@code cleanupInterval}; one that
 * ended on its budget with rows left runs again right after the next sweep pass, so cleanup keeps
 * up with any steady rate and a sweep pass runs at least every {@code cleanupBudget} (plus one
 * batch). Within a run, each table's batches go by keyset on the timestamp, so no batch walks the
 * index entries of rows its predecessors deleted. With {@code cleanupPauseFactor} above zero, a run
 * waits after each batch that another follows for that batch's time multiplied by the factor, so
 * that cleanup yields a share of the database to the application (see {@code docs/benchmarks.md}
 * for what it trades); the pauses count towards the budget and end on shutdown. Pending and parked
 * outbox rows never expire.
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
 * relayer-<store>-<component>-N}, are daemons, and are owned and stopped by the library. That start
 * and stop is written once, in {@code internal.BackgroundWork}: a stop signal the loops watch, then
 * a drain bounded by {@code shutdownTimeout}, after which work still running is interrupted.
 */
@NullMarked
package dev.relayer.dispatch;

import org.jspecify.annotations.NullMarked;
