package dev.relayer.dispatch.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.store.pass.ClaimedMessage;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The outage rule of {@link TransportWatch#recorded}: which failed sends keep their attempt counted
 * and which get it back. No database: the rule is decided from the sends alone.
 */
class TransportWatchOutageTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private final TransportWatch watch =
      new TransportWatch(
          "public.relayer_",
          Clock.fixed(NOW, ZoneOffset.UTC),
          new OperatorLog() {
            @Override
            public void warn(String line) {}

            @Override
            public void info(String line) {}
          });

  private static ClaimedMessage row(long id) {
    return new ClaimedMessage(
        id,
        new UUID(0, id),
        "rabbitmq",
        "orders",
        "test.Type",
        Map.of(),
        new byte[] {(byte) id},
        null,
        null,
        null,
        1,
        NOW,
        null,
        null);
  }

  private static SendOutcome.Failure timedOut(long id) {
    return new SendOutcome.Failure(row(id), SendFailure.TIMED_OUT, "no confirm in time");
  }

  private static SendOutcome.Failure refused(long id) {
    return new SendOutcome.Failure(row(id), SendFailure.SEND_FAILED, "basic.nack");
  }

  private List<Boolean> charged(SendOutcome.Failure... failures) {
    return watch
        .recorded(new SendOutcome(List.of(), List.of(failures), List.of(), List.of()))
        .failed()
        .stream()
        .map(SendOutcome.Failure::charged)
        .toList();
  }

  private void accepted(long id) {
    watch.recorded(new SendOutcome(List.of(row(id)), List.of(), List.of(), List.of()));
  }

  @Test
  void oneRowTimingOutAloneAgainAndAgainIsChargedEveryTime() {
    for (int i = 0; i < 5; i++) {
      assertThat(charged(timedOut(7))).containsExactly(true);
    }
    assertThat(watch.inOutage("rabbitmq")).isFalse();
  }

  @Test
  void timeoutsOfTwoDifferentRowsWhileEverySendFailsAreAnOutageAndGetTheirAttemptsBack() {
    assertThat(charged(timedOut(7)))
        .as("the first row alone: maybe the message")
        .containsExactly(true);
    assertThat(charged(timedOut(8))).as("a second row fails too: an outage").containsExactly(false);
    assertThat(charged(timedOut(7), timedOut(9))).containsExactly(false, false);
    assertThat(watch.inOutage("rabbitmq")).isTrue();
  }

  @Test
  void aCallWhoseRowsAllTimeOutIsAnOutageAtOnce() {
    assertThat(charged(timedOut(1), timedOut(2))).containsExactly(false, false);
  }

  @Test
  void aRefusalStaysChargedEvenDuringAnOutage() {
    charged(timedOut(1), timedOut(2));
    assertThat(watch.inOutage("rabbitmq")).isTrue();

    assertThat(charged(refused(3), timedOut(4))).containsExactly(true, false);
  }

  @Test
  void anAcceptedSendEndsTheOutageAndTheNextLoneTimeoutIsChargedAgain() {
    charged(timedOut(1), timedOut(2));
    accepted(3);

    assertThat(watch.inOutage("rabbitmq")).isFalse();
    assertThat(charged(timedOut(1))).containsExactly(true);
  }

  @Test
  void anUnavailableSendIsNeverChargedWhetherOrNotTheTransportIsInAnOutage() {
    SendOutcome.Failure unavailable =
        new SendOutcome.Failure(row(5), SendFailure.UNAVAILABLE, "connection refused");

    assertThat(charged(unavailable)).containsExactly(false);
  }
}
