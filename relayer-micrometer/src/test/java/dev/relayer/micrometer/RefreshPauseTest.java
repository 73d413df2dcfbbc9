package dev.relayer.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The pause after a gauge refresh: the configured period, or longer after a slow refresh. */
class RefreshPauseTest {

  private static final Duration PERIOD = Duration.ofSeconds(30);

  @Test
  void aQuickRefreshWaitsThePeriod() {
    assertThat(RelayerMetrics.pauseAfter(PERIOD, Duration.ofMillis(400))).isEqualTo(PERIOD);
    assertThat(RelayerMetrics.pauseAfter(PERIOD, Duration.ofMillis(1500))).isEqualTo(PERIOD);
  }

  @Test
  void aSlowRefreshWaitsTwentyTimesItsDuration() {
    assertThat(RelayerMetrics.pauseAfter(PERIOD, Duration.ofSeconds(6)))
        .isEqualTo(Duration.ofSeconds(120));
    assertThat(RelayerMetrics.pauseAfter(Duration.ofMillis(1), Duration.ofMillis(5)))
        .isEqualTo(Duration.ofMillis(100));
  }
}
