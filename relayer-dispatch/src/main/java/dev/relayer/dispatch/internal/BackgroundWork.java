package dev.relayer.dispatch.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * The start and stop of a background component's threads, written once: {@code RelayerMaintenance},
 * {@code RelayerLanes} and {@link DirectDispatcher} each own one.
 *
 * <p>States: <em>new</em>, <em>running</em> (after {@link #start}) and <em>stopped</em> (after
 * {@link #stop}, from either). {@link #start} runs its plan once: the plan checks what it must,
 * logs, and names the threads to run ({@link Threads#work}, {@link Threads#helper}); they start
 * when the plan returns. A plan that throws starts nothing, and a later start tries again. Start
 * after stop does nothing.
 *
 * <p>Stopping has two halves, so that a component can do its own part in between (stop its
 * scheduler, unregister listeners) in the order it needs:
 *
 * <ol>
 *   <li>{@link #stop} turns {@link #running()} false and wakes every {@link #awaitStop} at once.
 *       Loop bodies watch one or the other; none is interrupted yet.
 *   <li>{@link #drain} waits up to the component's shutdown timeout for the work threads to end.
 *       Work still running then is interrupted (a WARN {@code store=… <work> still running after …;
 *       interrupting}) and given 5 s more. Helper threads, which end on the stop signal or their
 *       own stop, get 5 s each after the work and are interrupted after that. Last it waits up to 5
 *       s per thread group for the threads themselves to exit. A closing thread that is interrupted
 *       while it waits interrupts every thread at once, keeps its interrupt flag and returns.
 * </ol>
 *
 * <p>Threads are named {@code relayer-<store>-<component>-N} ({@link NamedThreads}) and are
 * daemons.
 */
public final class BackgroundWork {

  /** How long a drain waits for interrupted work, for each helper, and for each group to exit. */
  private static final Duration FINAL_WAIT = Duration.ofSeconds(5);

  private final String store;
  private final String work;
  private final Logger log;
  private final Object lifecycle = new Object();
  private final CountDownLatch stopSignal = new CountDownLatch(1);
  private final List<Group> groups = new ArrayList<>();
  private boolean started;
  private boolean stopped;
  private volatile boolean running;

  /**
   * @param store the store's display name, for thread names and logs
   * @param work what the work threads do, for the log line of an interrupting drain (for example
   *     {@code "maintenance pass"})
   * @param log the component's logger, which writes that line
   */
  public BackgroundWork(String store, String work, Logger log) {
    this.store = store;
    this.work = work;
    this.log = log;
  }

  /**
   * Runs {@code plan} and then starts the threads it named, unless started or stopped already; both
   * under the lifecycle lock, so that a concurrent {@link #stop} comes before or after the whole of
   * it. Returns whether it started anything. When {@code plan} throws, nothing starts and the
   * exception goes to the caller.
   */
  public boolean start(Consumer<Threads> plan) {
    synchronized (lifecycle) {
      if (started || stopped) {
        return false;
      }
      Threads threads = new Threads();
      plan.accept(threads);
      started = true;
      running = true;
      for (Planned planned : threads.planned) {
        NamedThreads names = new NamedThreads(store, planned.component());
        ExecutorService executor = Executors.newFixedThreadPool(planned.count(), names);
        groups.add(new Group(executor, names, planned.bounded()));
        for (int i = 0; i < planned.count(); i++) {
          executor.execute(planned.body());
        }
      }
      return true;
    }
  }

  /** Whether the threads were started and not yet told to stop. */
  public boolean running() {
    return running;
  }

  /**
   * Waits up to {@code timeout} for the stop signal; whether it came. A thread interrupted while it
   * waits keeps its interrupt flag and is told to stop.
   */
  public boolean awaitStop(Duration timeout) {
    try {
      return stopSignal.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  /**
   * The loop of a pass that runs at once again when it found more to do: runs {@code pass} while
   * {@link #running()}; after a pass that returns false, waits {@code pause} first, and ends early
   * when the stop signal comes in that wait. {@code pass} catches and logs its own failures.
   */
  public void repeat(BooleanSupplier pass, Duration pause) {
    while (running) {
      if (!pass.getAsBoolean() && awaitStop(pause)) {
        return;
      }
    }
  }

  /** {@link #repeat} for a pass that always waits {@code pause} before the next. */
  public void every(Runnable pass, Duration pause) {
    repeat(
        () -> {
          pass.run();
          return false;
        },
        pause);
  }

  /**
   * The first half of a close: turns {@link #running()} false and sends the stop signal; safe
   * before start. Returns whether this was the first call (false: the component is closed already).
   */
  public boolean stop() {
    synchronized (lifecycle) {
      if (stopped) {
        return false;
      }
      stopped = true;
      running = false;
    }
    stopSignal.countDown();
    return true;
  }

  /**
   * The second half of a close, after {@link #stop}: waits up to {@code timeout} for the work
   * threads, interrupts them after that, then waits for the helpers and for every thread to exit,
   * as the class documentation says. Returns whether any threads had been started (false: close
   * before start).
   */
  public boolean drain(Duration timeout) {
    List<Group> current;
    synchronized (lifecycle) {
      if (!stopped) {
        throw new IllegalStateException("drain before stop");
      }
      if (!started) {
        return false;
      }
      current = List.copyOf(groups);
    }
    current.forEach(g -> g.executor().shutdown());
    try {
      long deadline = System.nanoTime() + timeout.toNanos();
      boolean finished = true;
      for (Group group : current) {
        if (group.bounded()) {
          long left = Math.max(0, deadline - System.nanoTime());
          finished &= group.executor().awaitTermination(left, TimeUnit.NANOSECONDS);
        }
      }
      if (!finished) {
        log.warn(
            "store={} {} still running after {}; interrupting",
            store,
            work,
            Durations.format(timeout));
        for (Group group : current) {
          if (group.bounded()) {
            group.executor().shutdownNow();
            group.executor().awaitTermination(FINAL_WAIT.toNanos(), TimeUnit.NANOSECONDS);
          }
        }
      }
      for (Group group : current) {
        if (!group.bounded()
            && !group.executor().awaitTermination(FINAL_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
          group.executor().shutdownNow();
        }
      }
      for (Group group : current) {
        group.threads().awaitExit(FINAL_WAIT);
      }
    } catch (InterruptedException e) {
      current.forEach(g -> g.executor().shutdownNow());
      Thread.currentThread().interrupt();
    }
    return true;
  }

  /** What a start plan names: the threads to run, started once the plan returns. */
  public static final class Threads {
    private final List<Planned> planned = new ArrayList<>();

    private Threads() {}

    /**
     * {@code count} threads named for {@code component}, each running {@code body}: the work a
     * close waits for up to its shutdown timeout and then interrupts.
     */
    public void work(String component, int count, Runnable body) {
      planned.add(new Planned(component, count, body, true));
    }

    /**
     * One thread named for {@code component} running {@code body}, which ends on the stop signal or
     * a stop of its own: a close waits 5 s for it after the work and then interrupts it.
     */
    public void helper(String component, Runnable body) {
      planned.add(new Planned(component, 1, body, false));
    }
  }

  private record Planned(String component, int count, Runnable body, boolean bounded) {}

  private record Group(ExecutorService executor, NamedThreads threads, boolean bounded) {}
}
