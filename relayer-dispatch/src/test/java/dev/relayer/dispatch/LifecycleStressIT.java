package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.store.health.HealthReads;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Start/stop stress of every background component, with work in flight. */
class LifecycleStressIT {

  DispatchFixture fx;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture();
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private static Set<String> relayerThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith("relayer-"))
        .collect(Collectors.toSet());
  }

  @Test
  void dispatcherAndMaintenanceSurviveRepeatedStartStopWithWorkInFlight() {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    int written = 0;
    for (int round = 0; round < 15; round++) {
      RelayerDispatcher dispatcher =
          RelayerDispatcher.builder(fx.store, fx.dsl)
              .transport(memory)
              .options(DispatchFixture.fastOptions().build())
              .build();
      RelayerMaintenance maintenance =
          RelayerMaintenance.create(dispatcher, DispatchFixture.fastMaintenance().build());
      if (round % 3 == 0) {
        // Never started: close must be harmless, twice.
        maintenance.close();
        maintenance.close();
        dispatcher.close();
        dispatcher.close();
        continue;
      }
      dispatcher.start();
      dispatcher.start();
      maintenance.start();
      maintenance.start();
      var app = fx.app(dispatcher);
      for (int i = 0; i < 10; i++) {
        app.transaction(tx -> fx.store.enqueue(tx.dsl(), DispatchFixture.message("stress")));
        written++;
      }
      maintenance.close();
      dispatcher.close();
      maintenance.close();
      dispatcher.close();
      dispatcher.start(); // start after close does nothing
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> relayerThreads().isEmpty());
    assertThat(HealthReads.of(fx.store).lease(fx.dsl, "sweeper"))
        .as("graceful close released the lease")
        .isEmpty();

    int total = written;
    try (RelayerDispatcher dispatcher =
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(memory)
                .options(DispatchFixture.fastOptions().build())
                .build();
        RelayerMaintenance maintenance =
            RelayerMaintenance.create(dispatcher, DispatchFixture.fastMaintenance().build())) {
      maintenance.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> fx.outboxCount() == 0);
    }
    assertThat(memory.deliveredIds().stream().distinct().count()).isEqualTo(total);
  }

  @Test
  void laneComponentsSurviveRepeatedStartStopWithWorkInFlight() {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    memory.hang(Duration.ofMillis(20));
    Set<UUID> written = new HashSet<>();
    Map<String, List<UUID>> writtenByKey = new HashMap<>();
    for (int round = 0; round < 12; round++) {
      RelayerDispatcher dispatcher =
          RelayerDispatcher.builder(fx.store, fx.dsl)
              .transport(memory)
              .options(DispatchFixture.fastOptions().build())
              .build();
      RelayerLanes lanes =
          RelayerLanes.builder(dispatcher)
              .owner("round-" + round)
              .options(DispatchFixture.fastLanes().listen(round % 2 == 0).build())
              .build();
      if (round % 4 == 0) {
        // Never started: close must be harmless, twice.
        lanes.close();
        lanes.close();
        dispatcher.close();
        continue;
      }
      dispatcher.start();
      lanes.start();
      lanes.start();
      var app = fx.app(dispatcher);
      for (int i = 0; i < 10; i++) {
        var message = DispatchFixture.ordered("key-" + (i % 3));
        app.transaction(tx -> fx.store.enqueue(tx.dsl(), message));
        written.add(message.messageId());
        writtenByKey
            .computeIfAbsent(message.orderingKey(), k -> new ArrayList<>())
            .add(message.messageId());
      }
      lanes.close();
      lanes.close();
      lanes.start(); // start after close does nothing
      dispatcher.close();
      assertThat(HealthReads.of(fx.store).liveLeases(fx.dsl, ""))
          .as("close gave every lease up")
          .isEmpty();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> relayerThreads().isEmpty());

    memory.behaveNormally();
    try (RelayerDispatcher dispatcher =
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(memory)
                .options(DispatchFixture.fastOptions().build())
                .build();
        RelayerLanes lanes =
            RelayerLanes.builder(dispatcher).options(DispatchFixture.fastLanes().build()).build()) {
      lanes.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> fx.outboxCount() == 0);
    }
    assertThat(new HashSet<>(memory.deliveredIds())).isEqualTo(written);
    writtenByKey.forEach(
        (key, ids) ->
            assertThat(
                    memory.deliveries().stream()
                        .filter(d -> key.equals(d.message().orderingKey()))
                        .map(d -> d.message().messageId())
                        .distinct()
                        .toList())
                .as("first deliveries of %s", key)
                .containsExactlyElementsOf(ids));
    await().atMost(Duration.ofSeconds(10)).until(() -> relayerThreads().isEmpty());
  }
}
