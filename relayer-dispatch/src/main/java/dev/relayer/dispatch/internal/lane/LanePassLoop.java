package dev.relayer.dispatch.internal.lane;

import dev.relayer.dispatch.internal.lane.LaneScheduler.Reason;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The body of a lane thread: take the next pass from the scheduler, run it, report how it ended.
 * Any failure is logged (WARN the first time a lane fails, DEBUG while it keeps failing, INFO when
 * it recovers) and the pass's lanes are tried again later; the loop itself never dies of it.
 */
public final class LanePassLoop {

  private static final Logger log = LoggerFactory.getLogger(LanePassLoop.class);

  private final String store;
  private final LaneScheduler scheduler;
  private final LaneWorker worker;
  private final DSLContext dsl;
  private final boolean[] failing;

  public LanePassLoop(
      String store, int laneCount, LaneScheduler scheduler, LaneWorker worker, DSLContext dsl) {
    this.store = store;
    this.scheduler = scheduler;
    this.worker = worker;
    this.dsl = dsl;
    this.failing = new boolean[laneCount];
  }

  /** Runs passes until {@code running} turns false or the scheduler stops. */
  public void run(BooleanSupplier running) {
    while (running.getAsBoolean()) {
      LaneScheduler.Task task;
      try {
        task = scheduler.take(Duration.ofSeconds(1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (task != null) {
        runTask(task);
      }
    }
  }

  private void runTask(LaneScheduler.Task task) {
    List<LaneWorker.PassResult> results;
    try {
      results =
          worker.pass(
              dsl,
              task.lanes(),
              task.reason() == Reason.RENEW,
              () -> !scheduler.othersWaiting(),
              scheduler::now);
    } catch (Throwable e) {
      failed(task, e);
      // The scheduler hands a lane to one thread at a time, so failing[lane] is never shared.
      scheduler.done(task, false, false, null, true);
      return;
    }
    for (LaneWorker.PassResult result : results) {
      int lane = result.lane();
      result.nothingDueSince().ifPresent(since -> scheduler.sawNothingDue(lane, since));
      if (failing[lane]) {
        failing[lane] = false;
        log.info("store={} lane={} passes work again", store, lane);
      }
      scheduler.done(task, lane, result.owner(), result.more(), result.dueIn().orElse(null), false);
    }
  }

  private void failed(LaneScheduler.Task task, Throwable e) {
    boolean first = false;
    for (int lane : task.lanes()) {
      first |= !failing[lane];
      failing[lane] = true;
    }
    if (first) {
      log.warn(
          "store={} lanes={} pass failed; their rows stay for a later pass",
          store,
          task.lanes(),
          e);
    } else {
      log.debug("store={} lanes={} pass failed again", store, task.lanes(), e);
    }
  }
}
