package dev.relayer.dispatch.internal;

import static org.jooq.impl.DSL.function;
import static org.jooq.impl.DSL.inline;

import java.time.Duration;
import org.jooq.DSLContext;
import org.jooq.TransactionContext;
import org.jooq.TransactionListener;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Bounds how long a transaction of Relayer's own may sit idle on the server: at the start of each
 * transaction it sets {@code idle_in_transaction_session_timeout} for that transaction only ({@code
 * set_config(…, true)}, the same as {@code SET LOCAL}), so that the server ends the session of an
 * instance that stopped talking mid-transaction — a half-open partition (TCP up, nothing answering:
 * a NAT entry gone, a paused VM), where neither side sees an error — and so releases the lease rows
 * and claimed rows that transaction had locked. Without it those locks last until the partition
 * heals or the server's TCP keepalive gives up (two hours with the OS defaults).
 *
 * <p>The bound is {@link #of the claim duration plus the send timeout}. A pass is never idle for
 * longer while it is well: between its claim and its completion it only sends, and no batch starts
 * after the claim's expiry less the send timeout ({@code Sender#lastStart}), so its sends end by
 * the claim's expiry; the send timeout on top is headroom for clock skew between this process and
 * the database and for listener work. With the defaults (30 s + 10 s) a partitioned instance's
 * lanes and leases are free again 40 s after its last statement; its lane leases expire after
 * {@code leaseDuration} (30 s) in any case, so the other instances take over after about that.
 *
 * <p>The setting is transaction-local: the application's transactions on the same pooled
 * connections keep the server's setting, and Relayer's value holds in Relayer's transactions even
 * where the server's is lower (a lower one would end healthy passes during slow sends). It costs
 * one statement per transaction, so it is applied where a transaction stays open across a send: the
 * lane passes and the maintenance passes (sweeper, cleanup, leases). Direct dispatch's claim
 * commits before its send and its completion runs after it: those transactions never wait on a
 * broker, hold no lease, and stay unbounded, one statement fewer per batch on the hot path.
 */
public final class IdleTransactionBound implements TransactionListener {

  /** The PostgreSQL setting bounded. */
  public static final String SETTING = "idle_in_transaction_session_timeout";

  private final String value;

  private IdleTransactionBound(Duration bound) {
    this.value = Math.max(1, bound.toMillis()) + "ms";
  }

  /** The bound for transactions that claim for {@code claimDuration} and send with a timeout. */
  public static Duration of(Duration claimDuration, Duration sendTimeout) {
    return claimDuration.plus(sendTimeout);
  }

  /** {@code dsl} whose transactions are bounded to {@code bound} of idle time. */
  public static DSLContext apply(DSLContext dsl, Duration bound) {
    return DSL.using(dsl.configuration().deriveAppending(new IdleTransactionBound(bound)));
  }

  @Override
  public void beginEnd(TransactionContext ctx) {
    ctx.dsl()
        .select(
            function(
                "set_config", SQLDataType.VARCHAR, inline(SETTING), inline(value), inline(true)))
        .fetch();
  }
}
