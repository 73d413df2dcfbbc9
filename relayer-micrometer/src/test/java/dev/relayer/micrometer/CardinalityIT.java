package dev.relayer.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.Relayer;
import dev.relayer.store.NewMessage;
import dev.relayer.transport.memory.InMemoryTransport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** 10,000 distinct destinations and ordering keys, sent, make a bounded number of meters. */
class CardinalityIT {

  private static final int MESSAGES = 10_000;

  private MetricsFixture fixture;

  @BeforeEach
  void setUp() {
    fixture = new MetricsFixture();
  }

  @AfterEach
  void tearDown() throws Exception {
    fixture.close();
  }

  @Test
  void tenThousandDistinctDestinationsAndKeysDoNotMakeTenThousandMeters() {
    InMemoryTransport memory = InMemoryTransport.of("memory", 100, true);
    Relayer relayer =
        fixture.track(fixture.fastRelayer(memory).lanes(MetricsFixture.fastLanes()).build());
    SimpleMeterRegistry plain = new SimpleMeterRegistry();
    SimpleMeterRegistry mapped = new SimpleMeterRegistry();
    fixture.track(RelayerMetrics.builder(relayer, plain).build());
    // Opted in with a mapping that returns every destination as it is: the bound still holds.
    fixture.track(RelayerMetrics.builder(relayer, mapped).destinationTag(d -> d, 20).build());
    relayer.start();

    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < MESSAGES; i++) {
      // Half unordered (direct dispatch), half ordered under a key of their own (lanes).
      messages.add(
          i % 2 == 0
              ? MetricsFixture.message("memory", "orders." + i)
              : MetricsFixture.ordered("memory", "orders." + i, "customer-" + i));
    }
    for (int from = 0; from < MESSAGES; from += 1_000) {
      List<NewMessage> chunk = messages.subList(from, from + 1_000);
      relayer.dsl().transaction(tx -> relayer.store().enqueue(tx.dsl(), chunk));
    }
    await()
        .atMost(Duration.ofMinutes(2))
        .until(() -> sent(plain) == MESSAGES && sent(mapped) == MESSAGES);

    assertThat(memory.deliveries()).hasSize(MESSAGES);
    assertThat(plain.getMeters()).hasSizeLessThan(60);
    Set<String> destinations =
        mapped.getMeters().stream()
            .map(Meter::getId)
            .map(id -> id.getTag("destination"))
            .filter(d -> d != null)
            .collect(Collectors.toSet());
    // The first 20 distinct destinations, and "other" for the 9,980 after them.
    assertThat(destinations).hasSize(21).contains("other");
    assertThat(mapped.getMeters()).hasSizeLessThan(60 + 21 * 3);
    assertThat(mapped.get("relayer.outbox.sent").tag("destination", "other").counter().count())
        .isGreaterThanOrEqualTo(MESSAGES - 20);
  }

  private static double sent(SimpleMeterRegistry registry) {
    return registry.find("relayer.outbox.sent").counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }
}
