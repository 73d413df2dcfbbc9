package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.dispatch.internal.OperatorLog;
import dev.relayer.dispatch.internal.PassFailureWatch;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The operator's lines about background passes that fail, by an injected clock. */
class PassFailureWatchTest {

  private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final OperatorLog recorder =
      new OperatorLog() {
        @Override
        public void warn(String line) {
          lines.add("WARN " + line);
        }

        @Override
        public void warn(String line, Throwable error) {
          lines.add("WARN " + line + " | " + error.getMessage());
        }

        @Override
        public void info(String line) {
          lines.add("INFO " + line);
        }
      };

  private PassFailureWatch lanes(String store) {
    return new PassFailureWatch(
        store, "lane", 16, "their rows stay for a later pass", clock, recorder);
  }

  private void advance(Duration by) {
    clock.advance(by);
  }

  @Test
  void aLaneThatKeepsFailingWarnsOnceThenAtMostOnceAMinuteAndSaysWhenItWorksAgain() {
    PassFailureWatch watch = lanes("public.relayer_");
    IllegalStateException broken = new IllegalStateException("lanes must name at least one lane");

    watch.failed(List.of(3), broken);
    assertThat(lines)
        .containsExactly(
            "WARN store=public.relayer_ lanes=[3] pass failed; their rows stay for a later pass"
                + " | lanes must name at least one lane");
    for (int i = 0; i < 59; i++) {
      advance(Duration.ofSeconds(1));
      watch.failed(List.of(3), broken);
    }
    assertThat(lines).as("59 s of failing passes, one line").hasSize(1);
    advance(Duration.ofSeconds(1));
    watch.failed(List.of(3), broken);
    assertThat(lines).hasSize(2);
    assertThat(lines.get(1))
        .isEqualTo(
            "WARN store=public.relayer_ lanes=[3] passes still failing, the longest for 1m: 60"
                + " failed passes since the last report, 61 in all; latest error:"
                + " java.lang.IllegalStateException: lanes must name at least one lane");
    advance(Duration.ofSeconds(30));
    watch.failed(List.of(3), broken);
    assertThat(lines).as("30 s after the last report").hasSize(2);

    advance(Duration.ofSeconds(5));
    watch.worked(3);
    assertThat(lines).hasSize(3);
    assertThat(lines.get(2))
        .isEqualTo(
            "INFO store=public.relayer_ lane=3 passes work again after failing for 95s (62 failed"
                + " passes)");
    watch.worked(3);
    assertThat(lines).as("working passes say nothing").hasSize(3);

    watch.failed(List.of(3), broken);
    assertThat(lines).as("a new failure warns at once").hasSize(4);
    assertThat(lines.get(3)).contains("lanes=[3] pass failed");
  }

  @Test
  void lanesThatStartFailingWarnAtOnceAndTheRepeatNamesEveryFailingLane() {
    PassFailureWatch watch = lanes("s");
    RuntimeException down = new RuntimeException("connection refused");

    watch.failed(List.of(1, 2), down);
    advance(Duration.ofSeconds(10));
    watch.failed(List.of(2, 7), down);
    assertThat(lines).hasSize(2);
    assertThat(lines.get(1)).startsWith("WARN store=s lanes=[7] pass failed");
    advance(Duration.ofSeconds(50));
    watch.failed(List.of(1), down);
    assertThat(lines).hasSize(3);
    assertThat(lines.get(2))
        .startsWith("WARN store=s lanes=[1, 2, 7] passes still failing, the longest for 1m: 2")
        .contains(", 5 in all;");
    watch.worked(1);
    watch.worked(2);
    assertThat(lines).hasSize(5);
    advance(Duration.ofSeconds(5));
    watch.failed(List.of(7), down);
    assertThat(lines).as("lane 7 still fails, 5 s after the last report").hasSize(5);
  }

  @Test
  void maintenanceThatKeepsFailingWarnsOnceThenAtMostOnceAMinuteAndSaysWhenItWorksAgain() {
    PassFailureWatch watch =
        new PassFailureWatch("s", "maintenance", 1, "will retry", clock, recorder);
    RuntimeException down = new RuntimeException("connection refused");

    watch.failed(down);
    for (int i = 0; i < 12; i++) {
      advance(Duration.ofSeconds(5));
      watch.failed(down);
    }
    watch.worked();

    assertThat(lines)
        .containsExactly(
            "WARN store=s maintenance pass failed; will retry | connection refused",
            "WARN store=s maintenance passes still failing for 1m: 12 failed passes since the last"
                + " report, 13 in all; latest error: java.lang.RuntimeException: connection"
                + " refused",
            "INFO store=s maintenance passes work again after failing for 1m (13 failed passes)");
  }
}
