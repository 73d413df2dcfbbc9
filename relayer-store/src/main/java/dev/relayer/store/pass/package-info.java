/**
 * Relayer's background passes on the store, one type per protocol — for {@code relayer-dispatch}
 * only. Applications use {@link dev.relayer.store.RelayerStore} (enqueue, inbox, schema checks) and
 * the components of {@code relayer-dispatch}; nothing here is for them, and a build rule keeps the
 * project's application-facing modules and examples off this package.
 *
 * <p>Each pass type is scoped to one transaction, holds its own lease and fence, and takes its
 * steps in one fixed order, refusing a step out of order with an {@link
 * java.lang.IllegalStateException}:
 *
 * <ul>
 *   <li>{@link dev.relayer.store.pass.SweepPass}: the sweeper's pass under the {@code sweeper}
 *       lease — start (settings and lease, first), claim (a locked page, or rows by id), complete,
 *       renew (last).
 *   <li>{@link dev.relayer.store.pass.LanePass}: a pass over one or more ordered lanes under their
 *       leases — start, claim heads, complete, give back what was not sent, renew with the lanes'
 *       next due instants (last).
 *   <li>{@link dev.relayer.store.pass.DirectClaim}: a claim that commits before its send — direct
 *       dispatch's, and every careful step of the sweeper and the lanes — and its completion in a
 *       transaction of its own; fenced by the claim's token, without a lease.
 *   <li>{@link dev.relayer.store.pass.CleanupPass}: a retention batch under the {@code cleanup}
 *       lease, or between two takes of it.
 * </ul>
 *
 * <p>A completion is one call with the whole outcome of a send ({@link
 * dev.relayer.store.pass.Completion}): the pass writes it in its order — for a locked claim the
 * stamp on the rows not accepted first, so that the token-fenced writes find them; then the delete
 * of the accepted rows, the parks and dead moves, the failures to retry — and returns what it wrote
 * ({@link dev.relayer.store.pass.Completion.Written}), a lost race being fewer rows, not an error.
 *
 * <p>Relayer's own commits do not wait for the WAL flush: a transaction that a server crash loses
 * only means rows sent again. Two kinds do wait, because what they record must be there before a
 * send that follows them: a transaction that marks rows in flight (a claim committed before its
 * send: {@link dev.relayer.store.pass.DirectClaim#claimByIds}, {@link
 * dev.relayer.store.pass.ClaimTransaction#markInFlight}, {@link
 * dev.relayer.store.pass.ClaimTransaction#markSentAlone}, a sweep pass's {@code claimAlone}), whose
 * attempt and mark would otherwise be lost while the send went ahead, and a sweep or lane pass
 * whose start created its lease or took it from another owner, so that the lease names the owner
 * that goes on to send: were it lost, the next owner would not know that the rows it finds may have
 * been in flight. The settings of the common cases ride on statements the transaction runs anyway —
 * a leased pass's start, a statement that marks rows, the delete of a direct completion's sent rows
 * — and cost no round trip of their own; a pass whose start created or took over its lease, and a
 * direct completion that sent nothing, make theirs in a statement of its own.
 *
 * <p>The passes own their statements: {@link dev.relayer.store.pass.Passes#of} renders them once
 * from the store's options ({@code PassSql}: {@code OutboxClaims}, {@code LaneClaims}, {@code
 * LeaseTable}, {@code RetentionDelete}), and each step of a pass calls its statement directly. The
 * protocol records the passes take and return ({@link dev.relayer.store.pass.Claim}, {@link
 * dev.relayer.store.pass.ClaimPage}, {@link dev.relayer.store.pass.LeaseRequest}, …) live here too.
 */
@NullMarked
package dev.relayer.store.pass;

import org.jspecify.annotations.NullMarked;
