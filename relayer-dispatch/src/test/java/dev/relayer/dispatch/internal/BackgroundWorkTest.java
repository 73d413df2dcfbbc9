package dev.relayer.dispatch.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** The start and stop skeleton of background components, with real threads. */
class BackgroundWorkTest {

  static final Duration WAIT = Duration.ofSeconds(10);

  private final RecordingLogger log = new RecordingLogger();
  private final BackgroundWork work = new BackgroundWork("s", "test work", log);
  private final Set<Thread> seen = ConcurrentHashMap.newKeySet();

  @AfterEach
  void closeWork() {
    if (work.stop()) {
      work.drain(Duration.ofSeconds(1));
    }
  }

  /**
   * Starts one work thread that takes no notice of the stop signal and waits until it runs; returns
   * what becomes true when it is interrupted.
   */
  private AtomicBoolean startWorkThatIgnoresTheStopSignal() throws InterruptedException {
    CountDownLatch working = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    work.start(
        threads ->
            threads.work(
                "w",
                1,
                seen(
                    () -> {
                      working.countDown();
                      try {
                        new CountDownLatch(1).await();
                      } catch (InterruptedException e) {
                        interrupted.set(true);
                      }
                    })));
    assertThat(working.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    return interrupted;
  }

  private Runnable seen(Runnable body) {
    return () -> {
      seen.add(Thread.currentThread());
      body.run();
    };
  }

  private void awaitStopped() {
    while (!work.awaitStop(Duration.ofMinutes(1))) {
      // the stop signal has not come yet
    }
  }

  @Test
  void startRunsThePlanOnceAndStartsTheNamedThreadsOnce() {
    AtomicInteger plans = new AtomicInteger();
    AtomicInteger bodies = new AtomicInteger();
    Runnable body =
        seen(
            () -> {
              bodies.incrementAndGet();
              awaitStopped();
            });

    boolean first =
        work.start(
            threads -> {
              plans.incrementAndGet();
              threads.work("w", 2, body);
              threads.helper("h", body);
            });
    boolean second = work.start(threads -> plans.incrementAndGet());

    assertThat(first).isTrue();
    assertThat(second).isFalse();
    assertThat(plans).hasValue(1);
    await().atMost(WAIT).until(() -> bodies.get() == 3);
    assertThat(seen)
        .extracting(Thread::getName)
        .containsExactlyInAnyOrder("relayer-s-w-1", "relayer-s-w-2", "relayer-s-h-1");
    assertThat(seen).allMatch(Thread::isDaemon);
    assertThat(work.running()).isTrue();
  }

  @Test
  void aPlanThatThrowsStartsNothingAndALaterStartRuns() {
    AtomicInteger bodies = new AtomicInteger();

    assertThatThrownBy(
            () ->
                work.start(
                    threads -> {
                      threads.work("w", 1, bodies::incrementAndGet);
                      throw new IllegalStateException("schema missing");
                    }))
        .hasMessage("schema missing");
    assertThat(work.running()).isFalse();
    boolean started = work.start(threads -> threads.work("w", 1, bodies::incrementAndGet));

    assertThat(started).isTrue();
    await().atMost(WAIT).until(() -> bodies.get() == 1);
    assertThat(work.stop()).isTrue();
    assertThat(work.drain(WAIT)).isTrue();
    assertThat(bodies).as("the first plan's thread never ran").hasValue(1);
  }

  @Test
  void closeWaitsForWorkThatFinishesInTime() throws Exception {
    CountDownLatch working = new CountDownLatch(2);
    AtomicInteger finished = new AtomicInteger();
    AtomicBoolean interrupted = new AtomicBoolean();
    work.start(
        threads -> {
          threads.work(
              "w",
              2,
              seen(
                  () -> {
                    working.countDown();
                    awaitStopped();
                    try {
                      // An in-flight batch that outlasts the stop signal but not the timeout.
                      TimeUnit.MILLISECONDS.sleep(300);
                      finished.incrementAndGet();
                    } catch (InterruptedException e) {
                      interrupted.set(true);
                    }
                  }));
          threads.helper("h", seen(this::awaitStopped));
        });
    assertThat(working.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

    assertThat(work.stop()).isTrue();
    assertThat(work.running()).isFalse();
    boolean hadStarted = work.drain(WAIT);

    assertThat(hadStarted).isTrue();
    assertThat(finished).as("both batches ran to their end").hasValue(2);
    assertThat(interrupted).isFalse();
    assertThat(seen).hasSize(3).noneMatch(Thread::isAlive);
    assertThat(log.lines).isEmpty();
  }

  @Test
  void closeInterruptsWorkThatDoesNotFinishAndReturns() throws Exception {
    AtomicBoolean interrupted = startWorkThatIgnoresTheStopSignal();

    long started = System.nanoTime();
    work.stop();
    work.drain(Duration.ofMillis(200));
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(interrupted).isTrue();
    assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(200)).isLessThan(WAIT);
    assertThat(seen).hasSize(1).noneMatch(Thread::isAlive);
    assertThat(log.lines)
        .containsExactly("WARN store=s test work still running after 200ms; interrupting");
  }

  @Test
  void closeIsSafeTwice() {
    work.start(threads -> threads.work("w", 1, seen(this::awaitStopped)));

    assertThat(work.stop()).isTrue();
    assertThat(work.drain(WAIT)).isTrue();
    assertThat(work.stop()).as("the second close finds the work closed").isFalse();
    assertThat(work.drain(WAIT)).isTrue();
    assertThat(seen).hasSize(1).noneMatch(Thread::isAlive);
    assertThat(log.lines).isEmpty();
  }

  @Test
  void closeBeforeStartStartsNothingLater() {
    AtomicInteger plans = new AtomicInteger();

    assertThat(work.stop()).isTrue();
    assertThat(work.drain(WAIT)).as("nothing had started").isFalse();
    boolean started = work.start(threads -> plans.incrementAndGet());

    assertThat(started).isFalse();
    assertThat(plans).hasValue(0);
    assertThat(work.running()).isFalse();
    assertThat(work.awaitStop(Duration.ZERO)).isTrue();
  }

  @Test
  void drainBeforeStopIsRefused() {
    assertThatThrownBy(() -> work.drain(WAIT)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aCloserInterruptedWhileItWaitsInterruptsTheWorkAndKeepsItsFlag() throws Exception {
    AtomicBoolean workInterrupted = startWorkThatIgnoresTheStopSignal();
    AtomicBoolean closerKeptFlag = new AtomicBoolean();
    CountDownLatch closing = new CountDownLatch(1);
    Thread closer =
        new Thread(
            () -> {
              work.stop();
              closing.countDown();
              work.drain(Duration.ofMinutes(5));
              closerKeptFlag.set(Thread.currentThread().isInterrupted());
            });
    closer.start();
    assertThat(closing.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

    closer.interrupt();
    closer.join(WAIT.toMillis());

    assertThat(closer.isAlive()).as("the closer returned").isFalse();
    assertThat(closerKeptFlag).isTrue();
    await().atMost(WAIT).untilTrue(workInterrupted);
    await().atMost(WAIT).until(() -> seen.stream().noneMatch(Thread::isAlive));
  }

  @Test
  void repeatGoesOnAtOnceWhileAPassFindsMoreAndEndsAtTheStopSignal() {
    AtomicInteger passes = new AtomicInteger();
    AtomicReference<Thread> loop = new AtomicReference<>();
    work.start(
        threads ->
            threads.work(
                "w",
                1,
                () -> {
                  loop.set(Thread.currentThread());
                  // Three passes find more; the fourth waits the (long) pause.
                  work.repeat(() -> passes.incrementAndGet() < 4, Duration.ofHours(1));
                }));
    await().atMost(WAIT).until(() -> passes.get() == 4);

    work.stop();
    work.drain(WAIT);

    assertThat(passes).as("no pass after the pause was cut short").hasValue(4);
    assertThat(loop.get().isAlive()).isFalse();
    assertThat(log.lines).as("the loop ended on the signal, not by interruption").isEmpty();
  }

  /** A logger that keeps each line as {@code LEVEL message}. */
  static final class RecordingLogger extends LegacyAbstractLogger {
    final List<String> lines = new CopyOnWriteArrayList<>();

    @Override
    protected @Nullable String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
        Level level,
        @Nullable Marker marker,
        String message,
        Object @Nullable [] arguments,
        @Nullable Throwable throwable) {
      lines.add(level + " " + MessageFormatter.basicArrayFormat(message, arguments));
    }

    @Override
    public boolean isTraceEnabled() {
      return true;
    }

    @Override
    public boolean isDebugEnabled() {
      return true;
    }

    @Override
    public boolean isInfoEnabled() {
      return true;
    }

    @Override
    public boolean isWarnEnabled() {
      return true;
    }

    @Override
    public boolean isErrorEnabled() {
      return true;
    }
  }
}
