/**
 * Ordered lanes: how rows that carry an ordering key are delivered in key order by several
 * instances at once.
 *
 * <h2>Lanes and keys</h2>
 *
 * <p>An ordered row's lane is {@code floorMod(crc32(utf8(ordering_key)), laneCount)}, fixed when it
 * is written. A key's rows therefore all live in one lane, and a lane holds many keys. Within a
 * key, ids follow commit order: every ordered enqueue takes a transaction-scoped advisory lock on
 * (store, key) before its insert. A key's <em>head</em> is its lowest id among its rows (pending or
 * parked). Nothing else ever sends ordered rows: direct dispatch and the sweeper claim only rows
 * without a lane.
 *
 * <h2>States of a lane</h2>
 *
 * <ul>
 *   <li><b>unassigned</b> — no live instance counts it in its share (only while instances come and
 *       go). Nobody runs passes over it; its rows wait.
 *   <li><b>assigned</b> — one instance counts it in its share and runs passes over it. A pass first
 *       takes the lease {@code lane/<n>}: as its owner, or when it has expired or was released.
 *       Otherwise the pass does nothing and is tried again a third of a lease later.
 *   <li><b>owned</b> — the instance holds the lease. Its passes claim and send; an idle owned lane
 *       renews its lease every third of {@code leaseDuration}.
 *   <li><b>released</b> — the owner gave the lease up (its share shrank, or it closed); the next
 *       instance whose share holds the lane takes it at its next attempt.
 * </ul>
 *
 * <h2>Who may write what</h2>
 *
 * <ul>
 *   <li>Heartbeat {@code instance/<owner>}: only that instance, every third of {@code
 *       leaseDuration} (the balancer), deleted when it closes.
 *   <li>Lease {@code lane/<n>}: taken, renewed and released only inside a pass (or a release) whose
 *       transaction first locked the lease row ({@code FOR UPDATE SKIP LOCKED}); a locked row means
 *       another pass runs, and the caller backs off. Expiry uses the database clock.
 *   <li>A lane's pending rows: claimed, deleted, held for retry, parked and given back only by the
 *       pass that holds the lane's lease row lock, in that same transaction. Claims, completions
 *       and the lease renewal commit together; nothing of a pass is visible before its commit.
 *   <li>Parked rows: made pending again or moved to the dead table only by an operator ({@code
 *       RelayerOperator}); the operator's transaction also notifies the lane.
 *   <li>New rows: inserted by the application's transactions at any time; they take higher ids than
 *       every committed row of their key.
 * </ul>
 *
 * <h2>Assignment</h2>
 *
 * <p>Every instance renews its heartbeat, reads the unexpired heartbeats (database clock), sorts
 * their owners and takes lane {@code n} when its own index is {@code n mod count}. Every instance
 * computes the same split from the same heartbeats, so no instance holds more than {@code
 * ceil(laneCount / count)} lanes while the others are alive. Lanes outside an instance's share are
 * released as soon as no pass of theirs runs; lanes newly inside it are attempted at once. While
 * instances disagree (one has seen a new heartbeat, another not yet), the lease keeps a lane with
 * one owner; the disagreement lasts at most one balancing round.
 *
 * <h2>One pass</h2>
 *
 * <p>A pass serves one or more lanes of this instance's share: the lane a thread picked and every
 * other lane ready to run at that moment (woken, due, or due for a poll; {@code LaneScheduler}).
 * Its statements are those of a one-lane pass with a longer lane list, so under load the wake-ups
 * that gather while a pass runs are served by the next pass together, at the cost of about one.
 * Each lane keeps its own lease; a pass works only in the lanes whose lease it took.
 *
 * <ol>
 *   <li>Begin a transaction; lock the lease rows; proceed as owner of each lane whose lease this
 *       instance holds or that expired (taking it over), in one statement in the usual case.
 *   <li>Claim, in one statement, for each key of those lanes whose head is pending, due and not
 *       held by a retry, the head and up to {@code rowsPerKey - 1} consecutive due rows after it
 *       bound for the same transport and destination (a run). Keys come oldest head first, at most
 *       {@code keysPerPass} per lane claimed. Each lane's heads are found by walking its pending
 *       rows in id order, each probed for being its key's head in the lane-key index; a lane whose
 *       walk meets many rows that are not due heads turns to one index descent per key instead. A
 *       claim reads about the rows it claims, never the lane's whole backlog. Rows are locked
 *       {@code SKIP LOCKED}; per key only the unbroken prefix of locked rows is claimed, so a row
 *       is never claimed without every earlier row of its key.
 *   <li>Send: heads of different keys may share a batch; consecutive rows of one key share a batch
 *       only on a batch-order transport, which stops at the first failure. Elsewhere a claim's runs
 *       go in waves: each batch holds the next row of every key whose previous row was accepted. A
 *       row is sent only after every earlier row of its key in the pass was accepted.
 *   <li>Complete, still in the transaction: delete accepted rows; hold a failed head until its
 *       backoff ends (its key waits, others do not); park a head that has used {@code maxAttempts};
 *       give back rows that were not attempted, refunding their attempt.
 *   <li>If every row of the claim was accepted, claim again (steps 2–4) in the same transaction,
 *       over the lanes that may have more (those the claim found rows in, and all of them when it
 *       reached its key limit) — the deleted rows are gone from its view, so the claim takes each
 *       key's next rows — up to {@code claimsPerPass} claims in all, and only while no lane outside
 *       the running passes waits for a thread. When one waits, the pass stops and asks, in one
 *       statement, which of its lanes still have a due head; those run again as soon as their turn
 *       comes. A crash before the commit repeats the sends of every claim of the pass, so {@code
 *       claimsPerPass} bounds them.
 *   <li>Renew the leases from {@code clock_timestamp()} and read when each lane with nothing more
 *       to send is next due, in one statement; commit.
 * </ol>
 *
 * <h2>What happens on each failure</h2>
 *
 * <ul>
 *   <li><b>A send fails</b>: the head's error and retry instant are stored; its key waits for the
 *       backoff, later rows of the key are given back untouched. Other keys go on.
 *   <li><b>A head runs out of attempts</b>: it is parked ({@code status = 'parked'}, error kept).
 *       Its key holds until an operator retries it, moves it to the dead table (the key then goes
 *       on with its next row) or releases the lane.
 *   <li><b>The owner dies mid-pass</b>: its connection drops, PostgreSQL rolls the pass back
 *       (claims, deletes, retry holds) and frees the lease row. Rows the broker already accepted
 *       are still pending: the next owner sends them again. Order holds, duplicates are possible.
 *       Its heartbeat and lane leases expire after {@code leaseDuration}; the remaining instances
 *       then split its lanes. A rolled-back claim spends no attempt, so the instance that takes
 *       such a lane over from an expired owner ({@code LeaseOutcome#takenOver}), or finds it under
 *       its own owner name without having held it (a process restarted under a fixed identity;
 *       {@code LeaseTracker#inherited}), runs the lane <em>careful</em> for its next {@code
 *       claimsPerPass} claims: each claim (heads only) is marked in flight with others ({@code
 *       ClaimedMessage.IN_FLIGHT}) and committed before its send, and sent and completed in
 *       transactions of their own. Heads marked in flight — the rows such a claim was sending when
 *       its owner died — are suspect and never sent with others again: a normal pass gives them
 *       back (refunding the attempt), and after its commit each is claimed alone, marked sent alone
 *       ({@code ClaimedMessage.SENT_ALONE}), committed and sent while the process sends nothing
 *       else ({@code SendGate}), fewest attempts first; that claim takes the interrupted claim's
 *       attempt over. So crashes with others cost no head an attempt, a message that kills its
 *       sender costs an attempt per crash while sent alone, and its key parks after {@code
 *       maxAttempts} of them (the first one or two sends, with others, are not counted), unsent by
 *       the last claim; other keys of the lane keep going, and no other head is charged for its
 *       crashes ({@code PoisonMessageIT}).
 *   <li><b>The owner stalls with its lease row locked</b> (a hung broker past {@code sendTimeout}
 *       is failed by the send timeout): the lease expires but the row lock still keeps others out,
 *       so two instances never run passes over one lane.
 *   <li><b>A half-open partition cuts the owner off mid-pass</b> (TCP up, nothing answering: a NAT
 *       entry gone, a paused VM): the pass's transaction sits idle on the server with the lease
 *       rows and its claimed rows locked. Every pass sets {@code
 *       idle_in_transaction_session_timeout} for its own transaction to {@code claimDuration +
 *       sendTimeout} ({@code IdleTransactionBound}; no healthy pass is idle longer), so the server
 *       ends that session, rolls the pass back and frees the rows; the lane's lease has expired by
 *       then (the owner could not renew it), and the instance whose share holds the lane takes it
 *       over ({@code HalfOpenPartitionIT}). The cut-off owner's own statements wait until the
 *       partition heals (or pgjdbc's {@code socketTimeout}) and then fail; its next pass finds the
 *       lease taken.
 *   <li><b>The database is unreachable</b>: passes and heartbeats fail and are retried; a lease
 *       that expires meanwhile goes to whichever assigned instance reaches the database first.
 *   <li><b>A notification is lost</b> (listening connection down, the listener behind a pooler that
 *       cannot {@code LISTEN} — found by the listener's self-test, which warns once and stops
 *       listening ({@code LaneWakeupListener}) — the writer's notifier failing or stopped, or an
 *       ordered write made without the dispatcher's transaction listener): the listener reconnects
 *       after {@code reconnectDelay} and wakes every owned lane once; until then, and always, each
 *       owned lane is polled every {@code pollInterval}.
 *   <li><b>Instances use different lane counts</b>: a key maps to different lanes on each, two
 *       owners may send it at once, and rows may sit in lanes nobody serves. Start-up logs an error
 *       for rows above the lane count; keeping the count equal everywhere is the operator's job.
 * </ul>
 *
 * <h2>Wake-ups</h2>
 *
 * <p>A commit that wrote ordered rows wakes their lanes: in-process through the dispatcher's
 * transaction listener when this instance owns the lane, and in the other instances through the
 * writing dispatcher's notifier ({@code LaneNotifier}). After an idle pass the lane is woken again
 * when its earliest schedule or retry hold ends. Unordered rows never use notifications.
 *
 * <p>The notifier, one per dispatcher, never runs inside the application's transaction: a
 * transaction that issued {@code NOTIFY} takes a database-wide lock when it commits, held through
 * the commit's WAL flush, so a notification in every application transaction would serialize all of
 * them. Instead the after-commit hand-off gives the notifier the lanes a commit wrote; the notifier
 * sets them in a bitmap (no lock, no I/O on the committing thread) and its own thread sends the
 * bitmap's lanes in one transaction of its own — {@code pg_notify} on the store's channel, the
 * lanes as a comma-separated list, split into payloads under PostgreSQL's 8000-byte limit,
 * committed without waiting for the WAL flush — at most once per {@code laneNotifyInterval}. The
 * first lanes after a quiet gap go out at once; lanes that arrive during a round or the interval
 * after it wait for the next round and share it. Lanes whose lease a {@code RelayerLanes} of the
 * same dispatcher holds are left out (woken in-process already).
 *
 * <p>States of the notifier: <b>idle</b> (bitmap empty; the thread parks and no connection is
 * held), <b>waiting</b> (lanes set, the interval since the last round not over), <b>sending</b>
 * (one connection borrowed from the dispatcher's {@code DSLContext} for one transaction, given back
 * at its end). A failed round puts its lanes back into the bitmap and waits a backoff that doubles
 * from the interval up to one second; it is logged at WARN on the first failure and then at most
 * once a minute, never thrown. {@code close()} sends what waits once more, then stops the thread
 * within the dispatcher's {@code shutdownTimeout}. Who may write: only the committing threads set
 * bits ({@code offer}); only the notifier's thread clears them (taking a round's lanes).
 *
 * <p>What is lost, and what covers it: a round that fails until the process stops, a crash before
 * the round's commit is flushed, lanes written without the transaction listener (a plain
 * auto-commit enqueue, another transaction manager), and every notification to an instance whose
 * listening connection is down. In each case the lane's owner finds the rows at its next poll
 * ({@code pollInterval}), or at once when its listener reconnects (it wakes all its lanes).
 *
 * <p>Both kinds of wake-up arrive only once the commit is visible: the transaction listener runs
 * after the commit returned, and the notifier sends only lanes it was handed after a commit. So a
 * look at the lane (a claim, or the due-head check) that starts after a wake-up arrived sees that
 * commit's rows. When a pass's last look found nothing due, a wake-up that arrived before that look
 * started is dropped instead of running a pass that would find nothing ({@code
 * LaneScheduler#sawNothingDue}); one that arrived later stays. Such wake-ups are common: the pass
 * already running claimed the commit's rows before its wake-up arrived (in one run of the lanes
 * benchmark at half its capacity, 1,776 wake-ups were dropped while 8,585 passes ran).
 */
@NullMarked
package dev.relayer.dispatch.internal.lane;

import org.jspecify.annotations.NullMarked;
