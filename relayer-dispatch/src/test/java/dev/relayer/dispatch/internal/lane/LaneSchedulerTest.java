package dev.relayer.dispatch.internal.lane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.dispatch.internal.lane.LaneScheduler.Ended;
import dev.relayer.dispatch.internal.lane.LaneScheduler.Reason;
import dev.relayer.dispatch.internal.lane.LaneScheduler.Task;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LaneSchedulerTest {

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final LaneScheduler scheduler =
      new LaneScheduler(4, 1, Duration.ofSeconds(60), Duration.ofSeconds(10), nanos::get);

  private Task next() throws InterruptedException {
    return scheduler.take(Duration.ZERO);
  }

  private void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }

  /** Runs every ready pass as an idle pass that held the lease. */
  private void settle() throws InterruptedException {
    for (Task task = next(); task != null; task = next()) {
      scheduler.done(task, Ended.held(false, null));
    }
  }

  @Test
  void newlyAssignedLanesRunAtOnceInOnePassAndNeverTwiceAtATime() throws InterruptedException {
    scheduler.target(Set.of(1, 3));
    Task first = next();
    assertThat(first).isEqualTo(new Task(List.of(1, 3), Reason.ACQUIRE));
    scheduler.wake(1);
    assertThat(next()).as("both lanes are running").isNull();
    scheduler.done(first, 1, Ended.held(false, null));
    assertThat(next()).isEqualTo(new Task(1, Reason.WAKEUP));
    assertThat(scheduler.running(3)).as("lane 3's end is not recorded yet").isTrue();
    scheduler.done(first, 3, Ended.held(false, null));
    assertThat(scheduler.running(3)).isFalse();
  }

  @Test
  void lanesReadyAtOnceJoinOnePassAndEachEndsOnItsOwn() throws InterruptedException {
    scheduler.target(Set.of(0, 1, 2, 3));
    settle();
    scheduler.wake(2);
    scheduler.wake(0);
    Task task = next();
    assertThat(task.lanes()).containsExactlyInAnyOrder(0, 2);
    assertThat(task.reason()).isEqualTo(Reason.WAKEUP);
    assertThat(next()).as("nothing else is ready").isNull();
    assertThatThrownBy(() -> scheduler.done(task, 1, Ended.held(false, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lane 1 is not one of");

    scheduler.done(task, 0, Ended.held(true, null));
    scheduler.done(task, 2, Ended.held(false, Duration.ofSeconds(3)));
    assertThat(next()).isEqualTo(new Task(0, Reason.CONTINUE));
  }

  @Test
  void aPassTakesAtMostItsThreadsShareOfTheAssignedLanes() throws InterruptedException {
    LaneScheduler shared =
        new LaneScheduler(8, 3, Duration.ofSeconds(60), Duration.ofSeconds(10), nanos::get);
    shared.target(Set.of(0, 1, 2, 3, 4, 5, 6));
    Task first = shared.take(Duration.ZERO);
    Task second = shared.take(Duration.ZERO);
    Task third = shared.take(Duration.ZERO);
    assertThat(first.lanes()).containsExactly(0, 1, 2);
    assertThat(second.lanes()).containsExactly(3, 4, 5);
    assertThat(third.lanes()).containsExactly(6);
    assertThat(shared.take(Duration.ZERO)).isNull();
  }

  @Test
  void aDueLaneJoinsAWokenOneButARenewalRunsAlone() throws InterruptedException {
    scheduler.target(Set.of(0, 1, 2, 3));
    settle();
    advance(Duration.ofSeconds(10));
    Task renew = next();
    assertThat(renew.reason()).isEqualTo(Reason.RENEW);
    assertThat(renew.lanes()).as("a renewal takes no other lane").hasSize(1);
    scheduler.done(renew, Ended.held(false, null));
    settle();

    scheduler.wake(0);
    Task first = next();
    assertThat(first).isEqualTo(new Task(0, Reason.WAKEUP));
    scheduler.done(first, Ended.held(false, Duration.ofSeconds(1)));
    advance(Duration.ofSeconds(1));
    scheduler.wake(2);
    assertThat(next()).isEqualTo(new Task(List.of(2, 0), Reason.WAKEUP));
  }

  @Test
  void aWakeUpThatArrivedBeforeALookFoundNothingDueIsDroppedALaterOneStays()
      throws InterruptedException {
    scheduler.target(Set.of(0, 1));
    settle();
    scheduler.wake(0);
    Task running = next();
    advance(Duration.ofMillis(1));
    scheduler.wake(0);
    advance(Duration.ofMillis(1));
    long look = scheduler.now();
    scheduler.sawNothingDue(0, look);
    scheduler.done(running, Ended.held(false, null));
    assertThat(next()).as("the look saw the commit that woke the lane").isNull();

    scheduler.wake(0);
    running = next();
    look = scheduler.now();
    advance(Duration.ofMillis(1));
    scheduler.wake(0);
    scheduler.sawNothingDue(0, look);
    scheduler.done(running, Ended.held(false, null));
    assertThat(next()).as("woken after the look began").isEqualTo(new Task(0, Reason.WAKEUP));

    scheduler.target(Set.of(0, 1, 2));
    advance(Duration.ofMillis(1));
    scheduler.sawNothingDue(2, scheduler.now());
    assertThat(next())
        .as("a newly assigned lane still runs")
        .isEqualTo(new Task(2, Reason.ACQUIRE));
  }

  @Test
  void othersWaitWhenAnotherLaneIsWokenOrDueButNotWhileItRuns() throws InterruptedException {
    scheduler.target(Set.of(0, 1));
    settle();
    scheduler.wake(0);
    Task running = next();
    assertThat(running.lane()).isZero();
    assertThat(scheduler.othersWaiting()).isFalse();
    scheduler.wake(0);
    assertThat(scheduler.othersWaiting()).as("a wake-up of the running lane itself").isFalse();
    scheduler.wake(1);
    assertThat(scheduler.othersWaiting()).isTrue();
    Task other = next();
    assertThat(scheduler.othersWaiting()).as("lane 1 runs now").isFalse();
    scheduler.done(other, Ended.held(false, Duration.ofSeconds(3)));
    assertThat(scheduler.othersWaiting()).isFalse();
    advance(Duration.ofSeconds(3));
    assertThat(scheduler.othersWaiting()).as("lane 1's retry hold ended").isTrue();
  }

  @Test
  void anIdleOwnedLaneIsRenewedEveryThirdOfTheLeaseAndPolledAtThePollInterval()
      throws InterruptedException {
    scheduler.target(Set.of(0));
    settle();
    advance(Duration.ofSeconds(9));
    assertThat(next()).isNull();
    advance(Duration.ofSeconds(1));
    Task renew = next();
    assertThat(renew).isEqualTo(new Task(0, Reason.RENEW));
    scheduler.done(renew, Ended.held(false, null));
    for (int i = 0; i < 4; i++) {
      advance(Duration.ofSeconds(10));
      Task task = next();
      assertThat(task.reason()).isEqualTo(Reason.RENEW);
      scheduler.done(task, Ended.held(false, null));
    }
    advance(Duration.ofSeconds(10));
    assertThat(next()).isEqualTo(new Task(0, Reason.POLL));
    assertThat(scheduler.passes(Reason.RENEW)).isEqualTo(5);
  }

  @Test
  void aPassThatMadeProgressContinuesAndAnIdleOneWaitsForItsDueInstant()
      throws InterruptedException {
    scheduler.target(Set.of(2));
    Task task = next();
    scheduler.done(task, Ended.held(true, null));
    Task again = next();
    assertThat(again).isEqualTo(new Task(2, Reason.CONTINUE));
    scheduler.done(again, Ended.held(false, Duration.ofSeconds(3)));
    advance(Duration.ofSeconds(2));
    assertThat(next()).isNull();
    advance(Duration.ofSeconds(1));
    assertThat(next()).isEqualTo(new Task(2, Reason.DUE));
  }

  @Test
  void aLaneHeldElsewhereIsTriedAgainAtTheRenewalCadence() throws InterruptedException {
    scheduler.target(Set.of(1));
    Task task = next();
    scheduler.done(task, Ended.HELD_ELSEWHERE);
    advance(Duration.ofSeconds(10));
    Task retry = next();
    assertThat(retry).isEqualTo(new Task(1, Reason.ACQUIRE));
    scheduler.done(retry, Ended.FAILED);
    advance(Duration.ofSeconds(10));
    assertThat(next()).isEqualTo(new Task(1, Reason.ACQUIRE));
  }

  @Test
  void wakeUpsOfLanesOutsideTheShareAreIgnoredAndDroppedLanesStopRunning()
      throws InterruptedException {
    scheduler.target(Set.of(0, 1));
    settle();
    scheduler.wake(3);
    scheduler.wake(7);
    assertThat(next()).isNull();
    scheduler.target(Set.of(1));
    scheduler.wakeAll();
    Set<Integer> woken = new HashSet<>();
    for (Task task = next(); task != null; task = next()) {
      woken.add(task.lane());
      scheduler.done(task, Ended.held(false, null));
    }
    assertThat(woken).containsExactly(1);
    assertThat(scheduler.targeted()).containsExactly(1);
  }

  @Test
  void takeWaitsForAWakeUpAndReturnsNullOnceStopped() throws Exception {
    LaneScheduler real =
        new LaneScheduler(2, 1, Duration.ofSeconds(60), Duration.ofSeconds(10), System::nanoTime);
    real.target(Set.of(0));
    real.done(real.take(Duration.ZERO), Ended.held(false, null));
    Thread waker =
        new Thread(
            () -> {
              try {
                Thread.sleep(100);
              } catch (InterruptedException e) {
                return;
              }
              real.wake(0);
            });
    waker.start();
    assertThat(real.take(Duration.ofSeconds(10))).isEqualTo(new Task(0, Reason.WAKEUP));
    real.stop();
    assertThat(real.take(Duration.ofSeconds(10))).isNull();
    waker.join();
  }
}
