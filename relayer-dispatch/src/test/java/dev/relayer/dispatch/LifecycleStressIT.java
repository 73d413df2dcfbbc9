package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.testkit.transport.InMemoryTransport;
import java.time.Duration;
import java.util.Set;
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
    assertThat(fx.store.lease(fx.dsl, "sweeper")).as("graceful close released the lease").isEmpty();

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
}
