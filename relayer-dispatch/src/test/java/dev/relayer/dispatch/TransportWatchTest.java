package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.dispatch.internal.HandoffWatch;
import dev.relayer.dispatch.internal.OperatorLog;
import dev.relayer.dispatch.internal.TransportWatch;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The operator's log lines about failing transports and lost hand-offs, by an injected clock. */
class TransportWatchTest {

  final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
  final List<String> lines = new CopyOnWriteArrayList<>();
  final OperatorLog recorder =
      new OperatorLog() {
        @Override
        public void warn(String line) {
          lines.add("WARN " + line);
        }

        @Override
        public void info(String line) {
          lines.add("INFO " + line);
        }
      };

  @Test
  void aFailingTransportWarnsOnceThenAtMostOnceAMinuteWithCountsAndInfoWhenItRecovers() {
    TransportWatch watch = new TransportWatch("public.relayer_", clock, recorder);

    watch.record("rabbit", "orders", 0, 3, "connection refused");
    assertThat(lines)
        .containsExactly(
            "WARN store=public.relayer_ transport=rabbit sends are failing: destination=orders"
                + " failed=3 error=connection refused");
    for (int i = 0; i < 50; i++) {
      clock.advance(Duration.ofSeconds(1));
      watch.record("rabbit", "orders", 0, 2, "connection refused");
    }
    assertThat(lines).as("50 s later, still one line").hasSize(1);
    clock.advance(Duration.ofMillis(9_999));
    watch.record("rabbit", "audit", 0, 1, "connection refused");
    assertThat(lines).as("59.999 s after the first line").hasSize(1);
    clock.advance(Duration.ofMillis(1));
    watch.record("rabbit", "audit", 0, 1, "timed out");
    assertThat(lines).hasSize(2);
    assertThat(lines.get(1))
        .startsWith("WARN store=public.relayer_ transport=rabbit still failing since 2026-01-01T")
        .contains("failed=102 since the last report, 105 in all")
        .contains("last destination=audit error=timed out");
    clock.advance(Duration.ofSeconds(30));
    watch.record("rabbit", "audit", 0, 1, "timed out");
    assertThat(lines).hasSize(2);

    clock.advance(Duration.ofSeconds(5));
    watch.record("rabbit", "orders", 4, 0, null);
    assertThat(lines).hasSize(3);
    assertThat(lines.get(2))
        .isEqualTo(
            "INFO store=public.relayer_ transport=rabbit sends succeed again after failing for"
                + " 95s (failed=106)");
    watch.record("rabbit", "orders", 4, 0, null);
    assertThat(lines).as("working sends say nothing").hasSize(3);

    watch.record("rabbit", "orders", 0, 1, "connection refused");
    assertThat(lines).as("a new outage warns at once").hasSize(4);
    assertThat(lines.get(3)).contains("sends are failing");
  }

  @Test
  void aCallWithSomeMessagesAcceptedIsNotAnOutage() {
    TransportWatch watch = new TransportWatch("s", clock, recorder);

    watch.record("nats", "orders", 5, 2, "message too large");

    assertThat(lines).isEmpty();
    assertThat(watch.lastMinute().get("nats").failsEverySend()).isFalse();
  }

  @Test
  void countsCoverTheCurrentSecondAndTheFiftyNineBefore() {
    TransportWatch watch = new TransportWatch("s", clock, recorder);
    watch.record("kafka", "t", 2, 0, null);
    clock.advance(Duration.ofSeconds(30));
    watch.record("kafka", "t", 0, 1, "e");

    clock.advance(Duration.ofMillis(29_999));
    TransportSends both = watch.lastMinute().get("kafka");
    assertThat(both.succeeded()).isEqualTo(2);
    assertThat(both.failed()).isEqualTo(1);
    clock.advance(Duration.ofMillis(1));
    TransportSends onlyTheFailure = watch.lastMinute().get("kafka");
    assertThat(onlyTheFailure.succeeded()).isZero();
    assertThat(onlyTheFailure.failed()).isEqualTo(1);
    assertThat(onlyTheFailure.failsEverySend()).isTrue();
    clock.advance(Duration.ofSeconds(30));
    assertThat(watch.lastMinute().get("kafka").failed()).isZero();
    assertThat(watch.lastMinute().get("kafka").failsEverySend()).isFalse();
  }

  @Test
  void droppedHandOffsAreSummarisedAtWarnAtMostOnceAMinute() {
    HandoffWatch watch = new HandoffWatch("s", clock, recorder);

    watch.dropped(5);
    assertThat(lines).singleElement().asString().contains("dropped=5 hand-offs");
    clock.advance(Duration.ofSeconds(20));
    watch.dropped(7);
    clock.advance(Duration.ofMillis(39_999));
    watch.dropped(1);
    assertThat(lines).hasSize(1);
    clock.advance(Duration.ofMillis(1));
    watch.dropped(2);
    assertThat(lines).hasSize(2);
    assertThat(lines.get(1)).contains("dropped=10 hand-offs since the last report (15 since");
    assertThat(watch.droppedTotal()).isEqualTo(15);
  }

  @Test
  void rowsTheSweeperDeliveredWithoutAHandOffAreSummarisedWithTheHint() {
    HandoffWatch watch = new HandoffWatch("s", clock, recorder);

    watch.sweptWithoutHandoff(0);
    assertThat(lines).isEmpty();
    watch.sweptWithoutHandoff(3);
    clock.advance(Duration.ofSeconds(59));
    watch.sweptWithoutHandoff(4);
    assertThat(lines).singleElement().asString().contains("rows=3").contains("afterCommit(ids)");
    clock.advance(Duration.ofSeconds(1));
    watch.sweptWithoutHandoff(1);
    assertThat(lines).hasSize(2);
    assertThat(lines.get(1)).contains("rows=5").contains("transactionListener()");
  }
}
