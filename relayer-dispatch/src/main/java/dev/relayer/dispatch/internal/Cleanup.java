package dev.relayer.dispatch.internal;

import dev.relayer.dispatch.CleanupResult;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.pass.CleanupPass;
import dev.relayer.store.pass.LeaseOutcome;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Passes;
import dev.relayer.store.pass.PurgeBatch;
import dev.relayer.store.pass.Purged;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * One cleanup run under the {@code cleanup} lease: drains dead rows older than the dead retention,
 * inbox records older than the inbox retention and idempotency keys older than the key retention.
 * Pending and parked outbox rows never expire.
 *
 * <p>A run is a sequence of batches, each at most {@code batchSize} rows of one table: the batch's
 * edge read and its delete in auto-commit, the delete committing without waiting for the WAL flush
 * ({@link CleanupPass#purgeDead}). The first batch of a run is one transaction that first locks the
 * lease row and restarts its expiry (proceed only if this owner holds the lease or it has expired;
 * {@link Passes#cleanup}); so is the first batch after a quarter of {@code leaseDuration} has
 * passed since the lease was last taken. The batches in between (each in auto-commit where the
 * pool's connections auto-commit, else each its own transaction) rely on the lease this owner holds
 * ({@link Passes#cleanupBetweenTakes}), which no other owner can take before it expires (and two
 * owners deleting the same expired rows would delete each row once). The tables take turns, batch
 * by batch, so that a huge backlog in one does not hold back the others. A table is done when a
 * batch of it reports nothing older left; the run ends when all are done ({@linkplain
 * CleanupResult#drained() drained}), when {@code budget} has passed (a batch that started in time
 * finishes), when the stop signal is raised, or when another owner holds the lease. Within a run
 * each table's batches go by keyset: a batch starts at the timestamp where the previous one ended,
 * so it never walks the index entries its predecessors left behind. The cutoffs are fixed when the
 * run starts.
 *
 * <p>Pacing: with a {@code pauseFactor} above zero, a run waits after each batch that another
 * follows for that batch's own time multiplied by the factor (as {@code pt-archiver}'s {@code
 * --sleep-coef} does), so that cleanup takes at most {@code 1 / (1 + pauseFactor)} of the time it
 * runs and yields the rest to the application's own transactions; a slower batch on a busier
 * database earns a longer pause. Pauses count towards the budget and end at once on the stop
 * signal, which then ends the run.
 *
 * <p>A run that ends before every table is done (on its budget or the stop signal) leaves each
 * table's keyset to the next run of this instance — a table already done there too — which goes on
 * from there with its own cutoffs instead of starting again at the oldest index entry and walking
 * every entry the runs before left behind. A run that drains every table, a run that loses the
 * lease and a run that fails leave nothing: the next starts at the oldest row of each, and so sees
 * a row that was written with a timestamp older than where an earlier drain had got to.
 *
 * <p>A crash or error in a batch rolls back that batch only; what earlier batches deleted stays
 * deleted, and the next run starts again from the oldest row.
 */
public final class Cleanup {

  /** Name of the cleanup lease. */
  public static final String LEASE = "cleanup";

  /** What cleanup needs. */
  public record Settings(
      String owner,
      int batchSize,
      Duration budget,
      double pauseFactor,
      Duration leaseDuration,
      Optional<Duration> deadRetention,
      Optional<Duration> inboxRetention,
      Optional<Duration> keyRetention) {}

  /** The tables a run drains, in the order they take turns. */
  private enum Table {
    DEAD,
    INBOX,
    KEYS;

    Optional<Duration> retention(Settings settings) {
      return switch (this) {
        case DEAD -> settings.deadRetention();
        case INBOX -> settings.inboxRetention();
        case KEYS -> settings.keyRetention();
      };
    }

    Purged purge(CleanupPass pass, PurgeBatch batch) {
      return switch (this) {
        case DEAD -> pass.purgeDead(batch);
        case INBOX -> pass.purgeInbox(batch);
        case KEYS -> pass.purgeIdempotencyKeys(batch);
      };
    }
  }

  private final Passes passes;
  private final Settings settings;
  private final LeaseTracker leases;
  private final LongSupplier nanoTime;

  /** Waits between batches. */
  @FunctionalInterface
  public interface Pause {
    /** Waits {@code duration}; {@code false} when the run is to stop instead. */
    boolean await(Duration duration);
  }

  public Cleanup(RelayerStore store, Settings settings, LeaseTracker leases) {
    this(store, settings, leases, System::nanoTime);
  }

  /** With the monotonic clock {@code nanoTime} that times batches, pauses and the budget. */
  public Cleanup(
      RelayerStore store, Settings settings, LeaseTracker leases, LongSupplier nanoTime) {
    this.passes = Passes.of(store);
    this.settings = settings;
    this.leases = leases;
    this.nanoTime = nanoTime;
  }

  public LeaseRequest lease() {
    return new LeaseRequest(LEASE, settings.owner(), settings.leaseDuration());
  }

  /** One table's drain within a run. */
  private static final class Drain {
    final Table table;
    PurgeBatch next;
    long deleted;
    boolean done;

    Drain(
        Table table,
        Optional<Duration> retention,
        Instant now,
        int batchSize,
        @Nullable PurgeBatch resume) {
      this.table = table;
      this.done = retention.isEmpty();
      Instant cutoff = now.minus(retention.orElse(Duration.ZERO));
      this.next =
          resume == null
              ? PurgeBatch.first(cutoff, batchSize)
              : new PurgeBatch(cutoff, resume.from(), batchSize);
    }

    /** Where the next batch of this table starts, whether or not this drain is done. */
    PurgeBatch position() {
      return next;
    }
  }

  /**
   * Where the last run's drains stopped, by table, for the next run to go on from; empty when the
   * last run drained every table or did not end normally.
   */
  private final Map<Table, PurgeBatch> resume = new EnumMap<>(Table.class);

  /**
   * Runs batches until every table comes back short, {@code budget} has passed or {@code stop} says
   * so; {@code now} fixes the cutoffs. {@code pause} waits between batches when the pause factor is
   * above zero, and ends the run when it returns {@code false}.
   */
  // drains holds one drain per Table, at its ordinal.
  @SuppressWarnings("EnumOrdinal")
  public synchronized CleanupResult pass(
      DSLContext dsl, Instant now, BooleanSupplier stop, Pause pause) {
    long clock = nanoTime.getAsLong();
    long deadline = clock + settings.budget().toNanos();
    List<Drain> drains = new ArrayList<>();
    for (Table table : Table.values()) {
      drains.add(
          new Drain(
              table, table.retention(settings), now, settings.batchSize(), resume.get(table)));
    }
    // A run that throws leaves nothing to go on from: the next starts at the oldest row.
    resume.clear();
    int batches = 0;
    boolean leader = true;
    boolean stopped = false;
    boolean first = true;
    Lease lease = new Lease();
    while (!allDone(drains) && !stopped) {
      if (!first && (stop.getAsBoolean() || clock - deadline >= 0)) {
        break;
      }
      first = false;
      for (Drain drain : drains) {
        if (drain.done) {
          continue;
        }
        long started = clock;
        Optional<Purged> purged = batch(dsl, drain, lease, started);
        clock = nanoTime.getAsLong();
        if (purged.isEmpty()) {
          leader = false;
          break;
        }
        batches++;
        drain.deleted += purged.get().deleted();
        drain.done = purged.get().drained();
        drain.next = drain.next.after(purged.get());
        if (allDone(drains)) {
          break;
        }
        long wait = Math.min(pauseAfter(clock - started), deadline - clock);
        if (wait > 0) {
          if (!pause.await(Duration.ofNanos(wait))) {
            stopped = true;
            break;
          }
          clock = nanoTime.getAsLong();
        }
      }
      if (!leader) {
        break;
      }
    }
    if (batches == 0 && allDone(drains)) {
      // Every retention infinite: still take and renew the lease, so the report shows who cleans.
      leader = dsl.transactionResult(tx -> holdLease(tx.dsl()));
    }
    if (leader && !allDone(drains)) {
      for (Drain drain : drains) {
        resume.put(drain.table, drain.position());
      }
    }
    leases.observe(LEASE, settings.owner(), leader);
    return new CleanupResult(
        leader,
        drains.get(Table.DEAD.ordinal()).deleted,
        drains.get(Table.INBOX.ordinal()).deleted,
        drains.get(Table.KEYS.ordinal()).deleted,
        batches,
        leader && allDone(drains));
  }

  private static boolean allDone(List<Drain> drains) {
    for (Drain drain : drains) {
      if (!drain.done) {
        return false;
      }
    }
    return true;
  }

  /** The pause after a batch that took {@code batchNanos}. */
  private long pauseAfter(long batchNanos) {
    return settings.pauseFactor() == 0 ? 0 : (long) (batchNanos * settings.pauseFactor());
  }

  /** When the run last took the lease, and the pool's commit mode it read before the first take. */
  private static final class Lease {
    /** Whether this run has taken the lease; {@link #takenAt} means something only then. */
    boolean held;

    /**
     * Whether the pool's connections auto-commit, read before the lease is first taken. A batch
     * between the takes runs in auto-commit only if they do: a pool that hands out connections in a
     * transaction rolls back what a statement left uncommitted when the connection goes back.
     */
    boolean autoCommit;

    long takenAt;
  }

  /**
   * One batch, {@code clock} its start: with the lease in one transaction when it is to be taken,
   * else in auto-commit; empty when another owner holds the lease.
   */
  private Optional<Purged> batch(DSLContext dsl, Drain drain, Lease lease, long clock) {
    boolean take = !lease.held || clock - lease.takenAt >= settings.leaseDuration().toNanos() / 4;
    if (!take) {
      return Optional.of(
          lease.autoCommit
              ? purge(passes.cleanupBetweenTakes(dsl), drain)
              : dsl.transactionResult(tx -> purge(passes.cleanupBetweenTakes(tx.dsl()), drain)));
    }
    if (!lease.held) {
      lease.autoCommit = dsl.connectionResult(Connection::getAutoCommit);
    }
    return dsl.transactionResult(
        tx -> {
          // Taking the lease restarts its expiry; its row lock keeps any other owner out until
          // the batch commits, and the expiry until well after the next time it is taken.
          CleanupPass pass = passes.cleanup(tx.dsl(), lease());
          if (pass.lease().filter(LeaseOutcome::acquired).isEmpty()) {
            return Optional.empty();
          }
          lease.held = true;
          lease.takenAt = clock;
          return Optional.of(purge(pass, drain));
        });
  }

  private static Purged purge(CleanupPass pass, Drain drain) {
    return drain.table.purge(pass, drain.next);
  }

  private boolean holdLease(DSLContext t) {
    if (!passes.leases().tryAcquire(t, lease()).acquired()) {
      return false;
    }
    passes.leases().renew(t, lease());
    return true;
  }
}
