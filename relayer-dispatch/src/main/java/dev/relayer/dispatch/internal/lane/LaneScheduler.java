package dev.relayer.dispatch.internal.lane;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Decides which lane a worker thread runs next, and why. It keeps, per lane: whether this instance
 * should own it (its share), whether a pass is running, a pending wake-up, and three timers — the
 * next poll, the instant the lane's earliest schedule or retry hold ends ({@code due}), and the
 * next lease renewal. A lane never runs two passes at once here; the lease keeps other instances
 * out.
 *
 * <p>Priority: a wake-up (or the continuation of a pass that made progress), then a due instant,
 * then a poll, then a renewal; lanes of equal priority take turns. A pass for anything but a
 * renewal also takes other lanes that are ready to run at that moment (woken, due, or due for a
 * poll), so that one transaction serves them all: under load, wake-ups gather while a pass runs and
 * the next pass serves them together, instead of one pass each. A pass takes at most its share of
 * the assigned lanes ({@code ceil(assigned / threads)}), so that the other threads find lanes to
 * serve and a slow send holds up only the lanes of its own pass. Times are {@link
 * System#nanoTime()} readings, local to this JVM.
 */
public final class LaneScheduler {

  /** Why a pass runs. */
  public enum Reason {
    /** A commit in this process or a notification named the lane, or the listener (re)connected. */
    WAKEUP,
    /** The previous pass sent rows or left rows unsent; there is probably more. */
    CONTINUE,
    /** The earliest schedule or retry hold of the lane has ended. */
    DUE,
    /** The poll interval elapsed without a wake-up: the safety net. */
    POLL,
    /** The lane was just assigned to this instance, or its lease is not held yet. */
    ACQUIRE,
    /** Only to renew the lease of an idle lane: no claim. */
    RENEW
  }

  /**
   * A pass to run over {@code lanes}: the lane it was picked for first, then the lanes that joined
   * it. {@code reason} is why the first one runs.
   */
  public record Task(List<Integer> lanes, Reason reason) {

    public Task {
      lanes = List.copyOf(lanes);
    }

    /** A pass over one lane. */
    public Task(int lane, Reason reason) {
      this(List.of(lane), reason);
    }

    /** The lane the pass was picked for. */
    public int lane() {
      return lanes.get(0);
    }
  }

  private static final long NEVER = Long.MAX_VALUE;

  private final int laneCount;
  private final int threads;
  private final long pollNanos;
  private final long renewNanos;
  private final LongSupplier nanoTime;
  private final boolean[] targeted;
  private final boolean[] running;
  private final boolean[] held;
  private final Reason[] woken;
  private final long[] wokenAt;
  private final long[] nextPoll;
  private final long[] nextDue;
  private final long[] nextRenew;
  private final AtomicLongArray passes = new AtomicLongArray(Reason.values().length);
  private int cursor;
  private boolean stopped;

  public LaneScheduler(
      int laneCount,
      int threads,
      Duration pollInterval,
      Duration renewInterval,
      LongSupplier nanoTime) {
    this.laneCount = laneCount;
    this.threads = threads;
    this.pollNanos = pollInterval.toNanos();
    this.renewNanos = renewInterval.toNanos();
    this.nanoTime = nanoTime;
    this.targeted = new boolean[laneCount];
    this.running = new boolean[laneCount];
    this.held = new boolean[laneCount];
    this.woken = new Reason[laneCount];
    this.wokenAt = new long[laneCount];
    this.nextPoll = new long[laneCount];
    this.nextDue = new long[laneCount];
    this.nextRenew = new long[laneCount];
  }

  /**
   * Sets this instance's share. Newly assigned lanes run at once (to take the lease and drain what
   * waits); lanes no longer assigned stop being scheduled.
   */
  public synchronized void target(Set<Integer> lanes) {
    for (int lane = 0; lane < laneCount; lane++) {
      boolean wanted = lanes.contains(lane);
      if (wanted && !targeted[lane]) {
        targeted[lane] = true;
        held[lane] = false;
        woken[lane] = Reason.ACQUIRE;
        nextPoll[lane] = NEVER;
        nextDue[lane] = NEVER;
        nextRenew[lane] = NEVER;
      } else if (!wanted && targeted[lane]) {
        targeted[lane] = false;
        woken[lane] = null;
      }
    }
    notifyAll();
  }

  /** The lanes this instance should own. */
  public synchronized Set<Integer> targeted() {
    Set<Integer> lanes = new TreeSet<>();
    for (int lane = 0; lane < laneCount; lane++) {
      if (targeted[lane]) {
        lanes.add(lane);
      }
    }
    return lanes;
  }

  /** Whether a pass of {@code lane} is running. */
  public synchronized boolean running(int lane) {
    return running[lane];
  }

  /**
   * Whether a lane outside the running passes is waiting for a thread: woken, or with a schedule or
   * retry hold that has ended. A pass stops claiming again when one is, so that busy lanes do not
   * delay the others.
   */
  public synchronized boolean othersWaiting() {
    long now = nanoTime.getAsLong();
    for (int other = 0; other < laneCount; other++) {
      if (targeted[other] && !running[other] && (woken[other] != null || now >= nextDue[other])) {
        return true;
      }
    }
    return false;
  }

  /** Runs {@code lane} as soon as a thread is free, if it is assigned here. */
  public synchronized void wake(int lane) {
    if (lane >= 0 && lane < laneCount && targeted[lane]) {
      wokenAt[lane] = nanoTime.getAsLong();
      if (woken[lane] == null) {
        woken[lane] = Reason.WAKEUP;
        notifyAll();
      }
    }
  }

  /** Wakes every assigned lane (after a notification may have been missed). */
  public synchronized void wakeAll() {
    long now = nanoTime.getAsLong();
    for (int lane = 0; lane < laneCount; lane++) {
      if (targeted[lane]) {
        wokenAt[lane] = now;
        if (woken[lane] == null) {
          woken[lane] = Reason.WAKEUP;
        }
      }
    }
    notifyAll();
  }

  /** This scheduler's clock, in nanoseconds: what {@link #sawNothingDue} compares. */
  public long now() {
    return nanoTime.getAsLong();
  }

  /**
   * A running pass of {@code lane} looked at it at {@code lookedAt} (this scheduler's clock, read
   * just before the look was sent) and found nothing due. A wake-up that arrived before then is
   * dropped: a notification arrives only after its commit became visible, so that look saw the
   * commit's rows. A later wake-up stays.
   */
  public synchronized void sawNothingDue(int lane, long lookedAt) {
    if (woken[lane] == Reason.WAKEUP && wokenAt[lane] < lookedAt) {
      woken[lane] = null;
    }
  }

  /**
   * The next pass to run, waiting up to {@code timeout} for one; {@code null} on timeout or once
   * stopped. The lane counts as running until {@link #done}.
   */
  // passes holds one counter per Reason, at its ordinal.
  @SuppressWarnings("EnumOrdinal")
  public synchronized @Nullable Task take(Duration timeout) throws InterruptedException {
    long deadline = nanoTime.getAsLong() + timeout.toNanos();
    while (!stopped) {
      long now = nanoTime.getAsLong();
      Task picked = pick(now);
      if (picked != null) {
        Task task = join(picked, now);
        for (int lane : task.lanes()) {
          running[lane] = true;
          woken[lane] = null;
        }
        cursor = (picked.lane() + 1) % laneCount;
        passes.incrementAndGet(task.reason().ordinal());
        return task;
      }
      long wakeAt = Math.min(deadline, earliestTimer());
      if (now >= deadline) {
        return null;
      }
      long waitNanos = Math.max(1, wakeAt - now);
      TimeUnit.NANOSECONDS.timedWait(this, waitNanos);
    }
    return null;
  }

  private @Nullable Task pick(long now) {
    Task timer = null;
    int timerRank = Integer.MAX_VALUE;
    for (int i = 0; i < laneCount; i++) {
      int lane = (cursor + i) % laneCount;
      if (!targeted[lane] || running[lane]) {
        continue;
      }
      if (woken[lane] != null) {
        return new Task(lane, woken[lane]);
      }
      if (timerRank > 0 && now >= nextDue[lane]) {
        timer = new Task(lane, Reason.DUE);
        timerRank = 0;
      } else if (timerRank > 1 && now >= nextPoll[lane]) {
        timer = new Task(lane, held[lane] ? Reason.POLL : Reason.ACQUIRE);
        timerRank = 1;
      } else if (timerRank > 2 && held[lane] && now >= nextRenew[lane]) {
        timer = new Task(lane, Reason.RENEW);
        timerRank = 2;
      }
    }
    return timer;
  }

  /**
   * {@code picked} and, unless it only renews, the next lanes ready to run at {@code now}, up to
   * one thread's share of the assigned lanes.
   */
  private Task join(Task picked, long now) {
    if (picked.reason() == Reason.RENEW) {
      return picked;
    }
    int assigned = 0;
    for (int lane = 0; lane < laneCount; lane++) {
      assigned += targeted[lane] ? 1 : 0;
    }
    int share = Math.max(1, (assigned + threads - 1) / threads);
    List<Integer> lanes = new ArrayList<>();
    lanes.add(picked.lane());
    for (int i = 1; i < laneCount && lanes.size() < share; i++) {
      int lane = (picked.lane() + i) % laneCount;
      if (targeted[lane]
          && !running[lane]
          && (woken[lane] != null || now >= nextDue[lane] || now >= nextPoll[lane])) {
        lanes.add(lane);
      }
    }
    return lanes.size() == 1 ? picked : new Task(lanes, picked.reason());
  }

  private long earliestTimer() {
    long earliest = NEVER;
    for (int lane = 0; lane < laneCount; lane++) {
      if (!targeted[lane] || running[lane]) {
        continue;
      }
      earliest = Math.min(earliest, Math.min(nextDue[lane], nextPoll[lane]));
      if (held[lane]) {
        earliest = Math.min(earliest, nextRenew[lane]);
      }
    }
    return earliest;
  }

  /** How a pass ended in a lane. */
  public sealed interface Ended {

    /** The pass threw: the lane is tried again at the renewal cadence. */
    Ended FAILED = new NotHeld(true);

    /** Another instance holds the lane's lease: tried again at the renewal cadence. */
    Ended HELD_ELSEWHERE = new NotHeld(false);

    /**
     * The pass held the lease and ended normally.
     *
     * @param more whether the pass made progress in the lane or left claimed rows unsent
     * @param dueIn when the lane's earliest schedule or retry hold ends, or {@code null}
     */
    static Ended held(boolean more, @Nullable Duration dueIn) {
      return new Held(more, dueIn);
    }
  }

  /** A pass that ended without the lease: it failed ({@code failed}), or another owner holds it. */
  private record NotHeld(boolean failed) implements Ended {}

  /** A pass that held the lease; see {@link Ended#held}. */
  private record Held(boolean more, @Nullable Duration dueIn) implements Ended {}

  /** Records that a pass ended the same way in every lane of {@code task}. */
  public synchronized void done(Task task, Ended how) {
    for (int lane : task.lanes()) {
      done(task, lane, how);
    }
  }

  /** Records how a pass ended in {@code lane}, one of {@code task}'s lanes. */
  public synchronized void done(Task task, int lane, Ended how) {
    if (!task.lanes().contains(lane)) {
      throw new IllegalArgumentException("lane " + lane + " is not one of " + task);
    }
    running[lane] = false;
    long now = nanoTime.getAsLong();
    if (how instanceof Held pass) {
      held[lane] = true;
      nextRenew[lane] = now + renewNanos;
      if (task.reason() != Reason.RENEW) {
        nextPoll[lane] = now + pollNanos;
        Duration dueIn = pass.dueIn();
        nextDue[lane] = dueIn == null ? NEVER : now + Math.max(1_000_000L, dueIn.toNanos());
        if (pass.more() && woken[lane] == null) {
          woken[lane] = Reason.CONTINUE;
        }
      }
    } else {
      // Not held (failed, or another owner's): try again at the renewal cadence, to take the
      // lease or after the error.
      held[lane] = false;
      nextPoll[lane] = now + Math.min(pollNanos, renewNanos);
      nextDue[lane] = NEVER;
    }
    notifyAll();
  }

  /** Passes started so far for {@code reason}. */
  // passes holds one counter per Reason, at its ordinal.
  @SuppressWarnings("EnumOrdinal")
  public long passes(Reason reason) {
    return passes.get(reason.ordinal());
  }

  /** Stops handing out passes; waiting threads return {@code null}. */
  public synchronized void stop() {
    stopped = true;
    notifyAll();
  }
}
