package dev.relayer.dispatch.internal.lane;

import dev.relayer.dispatch.internal.OperatorLog;
import dev.relayer.dispatch.internal.PassFailureWatch;
import dev.relayer.dispatch.internal.lane.LaneScheduler.Reason;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The body of a lane thread: take the next pass from the scheduler, run it, report how it ended.
 * Any failure is logged ({@link PassFailureWatch}: WARN when a lane starts failing, at most one
 * WARN a minute while lanes keep failing, INFO when one works again; every failure at DEBUG with
 * its stack trace) and the pass's lanes are tried again later; the loop itself never dies of it.
 */
public final class LanePassLoop {

  private static final Logger log = LoggerFactory.getLogger(LanePassLoop.class);

  private final String store;
  private final LaneScheduler scheduler;
  private final LaneWorker worker;
  private final DSLContext dsl;
  private final PassFailureWatch failures;
  private final LaneWorker.Pace pace;

  public LanePassLoop(
      String store,
      int laneCount,
      LaneScheduler scheduler,
      LaneWorker worker,
      DSLContext dsl,
      Clock clock) {
    this.store = store;
    this.scheduler = scheduler;
    this.worker = worker;
    this.dsl = dsl;
    this.failures =
        new PassFailureWatch(
            store,
            "lane",
            laneCount,
            "their rows stay for a later pass",
            clock,
            OperatorLog.to(log));
    // A pass claims again while no other lane waits for a thread.
    this.pace = new LaneWorker.Pace(() -> !scheduler.othersWaiting(), scheduler::now);
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
          task.reason() == Reason.RENEW
              ? worker.renew(dsl, task.lanes())
              : worker.pass(dsl, task.lanes(), pace);
    } catch (Throwable e) {
      log.debug("store={} lanes={} pass failed", store, task.lanes(), e);
      failures.failed(task.lanes(), e);
      scheduler.done(task, LaneScheduler.Ended.FAILED);
      return;
    }
    for (LaneWorker.PassResult result : results) {
      int lane = result.lane();
      result.nothingDueSince().ifPresent(since -> scheduler.sawNothingDue(lane, since));
      failures.worked(lane);
      scheduler.done(
          task,
          lane,
          result.owner()
              ? LaneScheduler.Ended.held(result.more(), result.dueIn().orElse(null))
              : LaneScheduler.Ended.HELD_ELSEWHERE);
    }
  }
}
