package dev.relayer.dispatch.internal.lane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The notifier's coalescing, retries and lifecycle, with a sender that records its rounds. */
class LaneNotifierTest {

  static final Duration WAIT = Duration.ofSeconds(10);

  private final List<Set<Integer>> rounds = new CopyOnWriteArrayList<>();

  private LaneNotifier notifier(Duration interval, Consumer<Set<Integer>> sender) {
    return new LaneNotifier("test", 64, interval, sender, Set::of);
  }

  private static Set<Integer> union(List<Set<Integer>> rounds) {
    Set<Integer> all = new TreeSet<>();
    rounds.forEach(all::addAll);
    return all;
  }

  @Test
  void theFirstLanesGoOutAtOnceAndLanesOfferedDuringARoundShareTheNext() throws Exception {
    CountDownLatch inFirstRound = new CountDownLatch(1);
    CountDownLatch releaseFirstRound = new CountDownLatch(1);
    LaneNotifier notifier =
        notifier(
            Duration.ofMillis(1),
            lanes -> {
              rounds.add(lanes);
              if (rounds.size() == 1) {
                inFirstRound.countDown();
                awaitLatch(releaseFirstRound);
              }
            });
    notifier.start();
    try {
      notifier.offer(Set.of(1));
      assertThat(inFirstRound.await(10, TimeUnit.SECONDS)).isTrue();
      for (int lane = 2; lane < 40; lane++) {
        notifier.offer(Set.of(lane, lane + 1));
      }
      releaseFirstRound.countDown();

      await().atMost(WAIT).until(() -> rounds.size() == 2);
      assertThat(rounds.get(0)).containsExactly(1);
      assertThat(rounds.get(1)).hasSize(39).contains(2, 40);
    } finally {
      notifier.close();
    }
  }

  @Test
  void roundsAreAtLeastTheIntervalApartUnderContinuousOffers() throws Exception {
    Duration interval = Duration.ofMillis(100);
    List<Long> sentAt = new CopyOnWriteArrayList<>();
    LaneNotifier notifier =
        notifier(
            interval,
            lanes -> {
              rounds.add(lanes);
              sentAt.add(System.nanoTime());
            });
    notifier.start();
    try {
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(550);
      int offers = 0;
      while (System.nanoTime() < until) {
        notifier.offer(Set.of(offers % 64));
        offers++;
        Thread.onSpinWait();
      }
      int lanesOffered = Math.min(64, offers);
      await().atMost(WAIT).until(() -> union(rounds).size() == lanesOffered);

      assertThat(rounds.size()).isBetween(2, 7);
      for (int i = 1; i < sentAt.size(); i++) {
        assertThat(sentAt.get(i) - sentAt.get(i - 1)).isGreaterThanOrEqualTo(interval.toNanos());
      }
    } finally {
      notifier.close();
    }
  }

  @Test
  void aFailedRoundIsRetriedWithItsLanesAndNothingIsThrownToTheOfferingThread() {
    AtomicInteger calls = new AtomicInteger();
    LaneNotifier notifier =
        notifier(
            Duration.ofMillis(1),
            lanes -> {
              if (calls.incrementAndGet() <= 2) {
                throw new IllegalStateException("database down");
              }
              rounds.add(lanes);
            });
    notifier.start();
    try {
      notifier.offer(Set.of(3, 9));

      await().atMost(WAIT).until(() -> !rounds.isEmpty());
      assertThat(rounds.get(0)).containsExactly(3, 9);
      assertThat(notifier.failures()).isEqualTo(2);
      assertThat(notifier.rounds()).isEqualTo(1);
    } finally {
      notifier.close();
    }
  }

  @Test
  void lanesServedInThisProcessAreLeftOut() {
    LaneNotifier notifier =
        new LaneNotifier("test", 64, Duration.ofMillis(1), rounds::add, () -> Set.of(1, 2));
    notifier.start();
    try {
      notifier.offer(Set.of(1, 2));
      notifier.offer(Set.of(2, 5));

      await().atMost(WAIT).until(() -> union(rounds).contains(5));
      assertThat(union(rounds)).containsExactly(5);
    } finally {
      notifier.close();
    }
  }

  @Test
  void lanesOfferedBeforeStartGoOutAtStartAndLanesOutOfRangeAreIgnored() {
    LaneNotifier notifier = notifier(Duration.ofMillis(1), rounds::add);
    notifier.offer(Set.of(7, 64, -1));
    assertThat(rounds).isEmpty();

    notifier.start();
    notifier.start();
    try {
      await().atMost(WAIT).until(() -> !rounds.isEmpty());
      assertThat(union(rounds)).containsExactly(7);
    } finally {
      notifier.close();
    }
  }

  @Test
  void closeSendsWhatWaitsThenStopsAndLaterOffersAreDropped() throws Exception {
    CountDownLatch inFirstRound = new CountDownLatch(1);
    CountDownLatch releaseFirstRound = new CountDownLatch(1);
    LaneNotifier notifier =
        notifier(
            Duration.ofSeconds(1),
            lanes -> {
              rounds.add(lanes);
              inFirstRound.countDown();
              if (rounds.size() == 1) {
                awaitLatch(releaseFirstRound);
              }
            });
    notifier.start();
    notifier.offer(Set.of(1));
    assertThat(inFirstRound.await(10, TimeUnit.SECONDS)).isTrue();
    notifier.offer(Set.of(2));

    Thread closing = new Thread(() -> notifier.close(Duration.ofSeconds(10)));
    closing.start();
    releaseFirstRound.countDown();
    closing.join(10_000);

    assertThat(closing.isAlive()).isFalse();
    assertThat(rounds).containsExactly(Set.of(1), Set.of(2));
    assertThat(notifierThreads()).isEmpty();
    notifier.offer(Set.of(3));
    notifier.close();
    assertThat(rounds).hasSize(2);
  }

  @Test
  void repeatedStartAndCloseUnderConcurrentOffersSendsEveryLaneOfferedBeforeClose()
      throws Exception {
    for (int cycle = 0; cycle < 50; cycle++) {
      List<Set<Integer>> sent = new CopyOnWriteArrayList<>();
      Set<Integer> offered = java.util.concurrent.ConcurrentHashMap.newKeySet();
      LaneNotifier notifier =
          new LaneNotifier("test", 64, Duration.ofMillis(1), sent::add, Set::of);
      notifier.start();
      List<Thread> offering = new java.util.ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int first = t * 16;
        Thread thread =
            new Thread(
                () -> {
                  for (int i = 0; i < 200; i++) {
                    int lane = first + i % 16;
                    offered.add(lane);
                    notifier.offer(Set.of(lane));
                  }
                });
        offering.add(thread);
        thread.start();
      }
      for (Thread thread : offering) {
        thread.join(10_000);
      }

      notifier.close(Duration.ofSeconds(10));

      assertThat(union(sent)).as("cycle %d", cycle).isEqualTo(offered);
    }
    assertThat(notifierThreads()).isEmpty();
  }

  @Test
  void closeBeforeStartAndTwiceIsSafe() {
    LaneNotifier notifier = notifier(Duration.ofMillis(1), rounds::add);
    notifier.close();
    notifier.close();
    notifier.start();
    notifier.offer(Set.of(1));
    assertThat(notifierThreads()).isEmpty();
    assertThat(rounds).isEmpty();
  }

  private static List<Thread> notifierThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(t -> t.getName().startsWith("relayer-test-lane-notify-"))
        .toList();
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
