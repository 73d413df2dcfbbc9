package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class LaneOptionsTest {

  @Test
  void defaultsAreDocumented() {
    LaneOptions o = LaneOptions.defaults();
    assertThat(o.pollInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(o.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.renewInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(o.keysPerPass()).isEqualTo(100);
    assertThat(o.rowsPerKey()).isEqualTo(100);
    assertThat(o.claimsPerPass()).isEqualTo(10);
    assertThat(o.threads()).isEqualTo(2);
    assertThat(o.listen()).isTrue();
    assertThat(o.reconnectDelay()).isEqualTo(Duration.ofSeconds(1));
    assertThat(o.shutdownTimeout()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void everyBadOptionIsNamedAtOnceAndNothingIsClamped() {
    assertThatThrownBy(
            () ->
                LaneOptions.builder()
                    .pollInterval(Duration.ZERO)
                    .leaseDuration(Duration.ofMillis(999))
                    .keysPerPass(0)
                    .rowsPerKey(10_001)
                    .claimsPerPass(0)
                    .threads(65)
                    .reconnectDelay(null)
                    .shutdownTimeout(Duration.ofSeconds(-1))
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("lanes.pollInterval must be positive")
        .hasMessageContaining("lanes.leaseDuration must be between 1s and 1h")
        .hasMessageContaining("lanes.keysPerPass must be between 1 and 10000, was 0")
        .hasMessageContaining("lanes.rowsPerKey must be between 1 and 10000, was 10001")
        .hasMessageContaining("lanes.claimsPerPass must be between 1 and 1000, was 0")
        .hasMessageContaining("lanes.threads must be between 1 and 64, was 65")
        .hasMessageContaining("lanes.reconnectDelay must be set")
        .hasMessageContaining("lanes.shutdownTimeout must not be negative");
    LaneOptions edges =
        LaneOptions.builder()
            .leaseDuration(Duration.ofHours(1))
            .keysPerPass(10_000)
            .rowsPerKey(1)
            .claimsPerPass(1_000)
            .threads(64)
            .shutdownTimeout(Duration.ZERO)
            .build();
    assertThat(edges.keysPerPass()).isEqualTo(10_000);
    assertThat(edges.rowsPerKey()).isEqualTo(1);
    assertThat(edges.claimsPerPass()).isEqualTo(1_000);
  }

  @Test
  void bindsFromStringsAndRejectsUnknownKeys() {
    LaneOptions o =
        LaneOptions.fromMap(
            Map.of(
                "pollInterval", "60s",
                "leaseDuration", "PT2S",
                "keysPerPass", "7",
                "claimsPerPass", "3",
                "listen", "false",
                "reconnectDelay", "250ms"));
    assertThat(o.pollInterval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(o.leaseDuration()).isEqualTo(Duration.ofSeconds(2));
    assertThat(o.keysPerPass()).isEqualTo(7);
    assertThat(o.claimsPerPass()).isEqualTo(3);
    assertThat(o.listen()).isFalse();
    assertThat(o.reconnectDelay()).isEqualTo(Duration.ofMillis(250));

    Properties properties = new Properties();
    properties.setProperty("threads", "3");
    assertThat(LaneOptions.fromProperties(properties).threads()).isEqualTo(3);

    assertThatThrownBy(() -> LaneOptions.fromMap(Map.of("listen", "yes", "lanes", "4")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("lanes: unknown option 'lanes'")
        .hasMessageContaining("lanes.listen: 'yes' is not true or false");
  }
}
