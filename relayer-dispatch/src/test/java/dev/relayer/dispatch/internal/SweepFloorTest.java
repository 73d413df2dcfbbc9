package dev.relayer.dispatch.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.store.pass.SweepBounds;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class SweepFloorTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration FULL = Duration.ofMinutes(10);

  private static SweepBounds read(long lowest, long oldestRunning, long xmax) {
    return new SweepBounds(
        OptionalLong.of(lowest), OptionalLong.of(lowest + 100), oldestRunning, xmax);
  }

  private static SweepBounds empty(long oldestRunning, long xmax) {
    return new SweepBounds(OptionalLong.empty(), OptionalLong.empty(), oldestRunning, xmax);
  }

  @Test
  void theFloorRisesOnlyOnceEveryWriterRunningAtTheCandidatesReadHasEnded() {
    SweepFloor floor = new SweepFloor(FULL);
    assertThat(floor.readFrom(T0)).isZero();
    floor.settle(read(50, 1000, 1005));
    assertThat(floor.readFrom(T0.plusSeconds(1))).as("a candidate, not yet a floor").isZero();

    floor.settle(read(60, 1004, 1010));
    assertThat(floor.floor()).as("transaction 1004 still runs").isZero();

    floor.settle(read(40, 1005, 1012));
    assertThat(floor.floor())
        .as("a writer that was running wrote 40 below the candidate 50")
        .isEqualTo(39);

    floor.settle(read(70, 1012, 1013));
    assertThat(floor.floor()).isEqualTo(39);
    floor.settle(empty(1013, 1013));
    assertThat(floor.readFrom(T0.plusSeconds(2))).isEqualTo(69);
  }

  @Test
  void aTraversalFromIdZeroComesEveryFullInterval() {
    SweepFloor floor = new SweepFloor(FULL);
    floor.readFrom(T0);
    floor.settle(read(50, 1000, 1001));
    floor.settle(read(50, 1001, 1001));
    assertThat(floor.readFrom(T0.plus(FULL).minusMillis(1))).isEqualTo(49);

    assertThat(floor.readFrom(T0.plus(FULL))).isZero();
    floor.settle(read(50, 1001, 1001));
    assertThat(floor.readFrom(T0.plus(FULL).plusSeconds(1)))
        .as("no candidate settled yet")
        .isZero();
  }

  @Test
  void aReadThatFindsNothingPendingRaisesTheFloorToTheHighestIdSeen() {
    SweepFloor floor = new SweepFloor(FULL);
    floor.readFrom(T0);
    floor.settle(read(50, 1000, 1001));
    floor.settle(empty(1001, 1002));
    assertThat(floor.floor()).as("the candidate 50 settled").isEqualTo(49);
    floor.settle(empty(1001, 1003));
    assertThat(floor.floor()).as("transaction 1001 may still write below 151").isEqualTo(49);
    floor.settle(empty(1003, 1003));
    assertThat(floor.floor()).isEqualTo(150);
  }
}
