package dev.relayer.micrometer;

import static dev.relayer.micrometer.MetricsFixture.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.spi.Transport;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.Relayer;
import dev.relayer.transport.rabbitmq.RabbitMqFixture;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outcomes a real RabbitMQ gives — accepted, unroutable (rejected for good), the broker gone
 * (retried) — as the counters and the send timer see them.
 */
class RabbitMqMetersIT {

  private MetricsFixture fixture;
  private RabbitMqFixture broker;
  private SimpleMeterRegistry registry;

  @BeforeEach
  void setUp() throws Exception {
    fixture = new MetricsFixture();
    broker = RabbitMqFixture.proxied(false);
    registry = new SimpleMeterRegistry();
  }

  @AfterEach
  void tearDown() throws Exception {
    fixture.close();
    broker.close();
  }

  @Test
  void acceptedUnroutableAndBrokerDownSendsAreCountedAsSentPermanentAndRetried() throws Exception {
    Transport rabbit = broker.openTransport();
    assertThat(rabbit).isInstanceOf(RabbitMqTransport.class);
    String transport = rabbit.name();
    Relayer relayer =
        fixture.track(
            Relayer.builder(fixture.pool)
                .transport(rabbit)
                .dispatch(
                    DispatchOptions.builder()
                        .sendTimeout(Duration.ofSeconds(3))
                        .claimDuration(Duration.ofSeconds(5))
                        .maxAttempts(50)
                        .backoffInitial(Duration.ofMillis(200))
                        .backoffMax(Duration.ofMillis(500))
                        .build())
                .maintenance(MetricsFixture.fastMaintenance().build())
                .withoutLanes()
                .build());
    fixture.track(RelayerMetrics.builder(relayer, registry).build());
    relayer.start();
    String queue = broker.createDestination();
    String unroutable = broker.unroutableDestination();

    relayer
        .dsl()
        .transaction(
            tx -> {
              for (int i = 0; i < 3; i++) {
                relayer.store().enqueue(tx.dsl(), message(transport, queue));
              }
              relayer.store().enqueue(tx.dsl(), message(transport, unroutable));
            });
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count("relayer.outbox.sent") == 3
                    && count("relayer.outbox.dead", "reason", "rejected") == 1);
    assertThat(count("relayer.outbox.failed", "transport", transport, "reason", "permanent"))
        .isEqualTo(1);
    assertThat(sends("success")).isPositive();
    assertThat(sends("failure")).isEqualTo(1);

    // The broker goes away: sends fail (unavailable: nothing reached it) and are retried, then
    // succeed once it is back.
    broker.stop();
    relayer.dsl().transaction(tx -> relayer.store().enqueue(tx.dsl(), message(transport, queue)));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count("relayer.outbox.failed", "reason", "transient")
                        + count("relayer.outbox.failed", "reason", "timeout")
                        + count("relayer.outbox.failed", "reason", "unavailable")
                    >= 1);
    broker.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> count("relayer.outbox.sent") == 4);

    assertThat(broker.consumeUntil(queue, r -> r.size() >= 4, Duration.ofSeconds(10)))
        .hasSizeGreaterThanOrEqualTo(4);
    assertThat(count("relayer.outbox.dead")).isEqualTo(1);
    assertThat(count("relayer.outbox.failed", "reason", "permanent")).isEqualTo(1);
  }

  private double count(String name, String... tags) {
    return Search.in(registry).name(name).tags(tags).counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  private long sends(String outcome) {
    return Search.in(registry).name("relayer.outbox.send").tag("outcome", outcome).timers().stream()
        .mapToLong(Timer::count)
        .sum();
  }
}
