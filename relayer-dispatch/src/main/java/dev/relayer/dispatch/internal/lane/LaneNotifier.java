package dev.relayer.dispatch.internal.lane;

import dev.relayer.dispatch.internal.Durations;
import dev.relayer.dispatch.internal.NamedThreads;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes lane owners in other instances after commit: one per dispatcher (so one per store in a
 * process). Commits hand it the lanes they wrote ({@link #offer}); one thread of its own sends them
 * as one notification round ({@code RelayerStore.notifyLanes}) from a short transaction of its own,
 * at most once per {@code interval}. The first lanes after a quiet gap go out at once; lanes
 * offered while a round is being sent or during the interval after it are merged and go out
 * together in the next round, so under load the notifying transactions of a process are bounded by
 * the interval, whatever the rate of commits.
 *
 * <p>The commit path never waits: {@link #offer} sets bits in a bitmap of the lanes and unparks the
 * thread, without locks, I/O or allocation beyond the caller's set. A failed round (database down,
 * a broken pooled connection) puts its lanes back, is logged (a WARN at the first failure and then
 * at most once a minute, with the count) and is retried after a backoff that doubles from the
 * interval up to one second; nothing is thrown to anyone. Lost rounds are lossy-safe: every owner
 * also polls its lanes.
 *
 * <p>Lanes served in this process ({@code localLanes}, the lanes whose lease a {@code RelayerLanes}
 * of the same dispatcher holds) are left out of a round: the commit already woke them in-process,
 * and a notification would only run a second pass there.
 *
 * <p>The sender borrows a connection for each round and gives it back at once: nothing is held
 * while no lanes wait. {@link #close()} sends what is still waiting once, then stops the thread
 * within a bound.
 */
public final class LaneNotifier implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LaneNotifier.class);
  private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final String store;
  private final int laneCount;
  private final long intervalNanos;
  private final Consumer<Set<Integer>> sender;
  private final Supplier<Set<Integer>> localLanes;
  private final AtomicLongArray pending;
  private final AtomicBoolean signalled = new AtomicBoolean();
  private final AtomicLong rounds = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final Object lifecycle = new Object();
  private volatile boolean stopping;
  private volatile @Nullable Thread thread;

  /**
   * @param store the store's display name, for logs and the thread name
   * @param laneCount the store's lane count
   * @param interval shortest gap between two rounds
   * @param sender sends one round (all lanes given) in a transaction of its own; throws on failure
   * @param localLanes the lanes served in this process at this moment, left out of rounds
   */
  public LaneNotifier(
      String store,
      int laneCount,
      Duration interval,
      Consumer<Set<Integer>> sender,
      Supplier<Set<Integer>> localLanes) {
    this.store = store;
    this.laneCount = laneCount;
    this.intervalNanos = interval.toNanos();
    this.sender = sender;
    this.localLanes = localLanes;
    this.pending = new AtomicLongArray((laneCount + 63) / 64);
  }

  /** Starts the sending thread; idempotent, and a no-op after {@link #close()}. */
  public void start() {
    synchronized (lifecycle) {
      if (thread != null || stopping) {
        return;
      }
      Thread started = new NamedThreads(store, "lane-notify").newThread(this::run);
      thread = started;
      started.start();
    }
  }

  /**
   * Adds {@code lanes} to the next round; never blocks and never throws for a lane in range (lanes
   * outside {@code [0, laneCount)} are ignored). Lanes offered before {@link #start()} wait for it;
   * after {@link #close()} they are dropped.
   */
  public void offer(Set<Integer> lanes) {
    if (stopping) {
      return;
    }
    boolean added = false;
    for (int lane : lanes) {
      if (lane >= 0 && lane < laneCount) {
        long bit = 1L << (lane & 63);
        int word = lane >>> 6;
        if ((pending.get(word) & bit) == 0) {
          pending.getAndAccumulate(word, bit, (a, b) -> a | b);
        }
        added = true;
      }
    }
    if (added && !signalled.getAndSet(true)) {
      Thread current = thread;
      if (current != null) {
        LockSupport.unpark(current);
      }
    }
  }

  /** Notification rounds sent so far (each one transaction, one payload per 7,999 bytes). */
  public long rounds() {
    return rounds.get();
  }

  /** Rounds that failed so far (their lanes were retried). */
  public long failures() {
    return failures.get();
  }

  private void run() {
    long nextRound = System.nanoTime();
    int failing = 0;
    long failingSince = 0;
    long nextWarn = 0;
    while (true) {
      awaitLanes();
      if (stopping && !hasPending()) {
        return;
      }
      if (!stopping) {
        awaitUntil(nextRound);
      }
      Set<Integer> lanes = drain();
      lanes.removeAll(localLanesNow());
      long now = System.nanoTime();
      if (lanes.isEmpty()) {
        if (stopping) {
          return;
        }
        continue;
      }
      try {
        sender.accept(lanes);
        rounds.incrementAndGet();
        if (failing > 0) {
          log.info("store={} lane notifications sent again after {} failed rounds", store, failing);
        }
        failing = 0;
        // From the end of the round: a slow round never lets rounds follow closer than this.
        nextRound = System.nanoTime() + intervalNanos;
      } catch (Throwable e) {
        failures.incrementAndGet();
        if (failing == 0) {
          failingSince = now;
        }
        failing++;
        if (failing == 1 || now - nextWarn >= 0) {
          log.warn(
              "store={} lane notifications failed {} times in a row (the first {} ago);"
                  + " retrying, and the lanes' owners keep polling meanwhile",
              store,
              failing,
              Durations.format(Duration.ofNanos(now - failingSince)),
              e);
          nextWarn = now + WARN_EVERY_NANOS;
        } else {
          log.debug("store={} lane notification round failed", store, e);
        }
        if (stopping) {
          return;
        }
        merge(lanes);
        long backoff = intervalNanos << Math.min(failing, 20);
        nextRound =
            System.nanoTime() + Math.min(Math.max(backoff, intervalNanos), MAX_BACKOFF_NANOS);
      }
    }
  }

  private Set<Integer> localLanesNow() {
    try {
      return localLanes.get();
    } catch (RuntimeException e) {
      log.debug("store={} could not read the lanes served here", store, e);
      return Set.of();
    }
  }

  /** Parks until lanes wait or {@link #close()} was called. */
  private void awaitLanes() {
    while (!stopping) {
      if (hasPending()) {
        return;
      }
      signalled.set(false);
      // An offer that set its bits before this line is seen here; one after it unparks us.
      if (hasPending()) {
        return;
      }
      LockSupport.parkNanos(this, TimeUnit.SECONDS.toNanos(1));
    }
  }

  /** Parks until {@code deadline} ({@link System#nanoTime()}) or {@link #close()}. */
  private void awaitUntil(long deadline) {
    long left;
    while (!stopping && (left = deadline - System.nanoTime()) > 0) {
      LockSupport.parkNanos(this, left);
    }
  }

  private boolean hasPending() {
    for (int i = 0; i < pending.length(); i++) {
      if (pending.get(i) != 0) {
        return true;
      }
    }
    return false;
  }

  private Set<Integer> drain() {
    Set<Integer> lanes = new TreeSet<>();
    for (int word = 0; word < pending.length(); word++) {
      long bits = pending.getAndSet(word, 0);
      while (bits != 0) {
        int bit = Long.numberOfTrailingZeros(bits);
        lanes.add(word * 64 + bit);
        bits &= bits - 1;
      }
    }
    return lanes;
  }

  private void merge(Set<Integer> lanes) {
    for (int lane : lanes) {
      pending.getAndAccumulate(lane >>> 6, 1L << (lane & 63), (a, b) -> a | b);
    }
  }

  /**
   * Sends what still waits once, then stops the thread; waits up to {@code timeout} for it and
   * interrupts it after that. Safe before start and twice.
   */
  public void close(Duration timeout) {
    Thread current;
    synchronized (lifecycle) {
      if (stopping) {
        return;
      }
      stopping = true;
      current = thread;
    }
    if (current == null) {
      return;
    }
    LockSupport.unpark(current);
    try {
      current.join(Math.max(1, timeout.toMillis()));
      if (current.isAlive()) {
        log.warn(
            "store={} lane notifier still sending after {}; interrupting",
            store,
            Durations.format(timeout));
        current.interrupt();
        current.join(TimeUnit.SECONDS.toMillis(5));
      }
    } catch (InterruptedException e) {
      current.interrupt();
      Thread.currentThread().interrupt();
    }
  }

  /** {@link #close(Duration)} with a 5 s bound. */
  @Override
  public void close() {
    close(Duration.ofSeconds(5));
  }
}
