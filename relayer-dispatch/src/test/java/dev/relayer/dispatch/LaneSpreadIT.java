package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.store.StoreOptions;
import dev.relayer.store.health.HealthReads;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Live instances share the lanes evenly and take over the lanes of one that leaves. */
class LaneSpreadIT {

  static final Duration WAIT = Duration.ofSeconds(20);

  DispatchFixture fx;
  InMemoryTransport memory = InMemoryTransport.named("memory");

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture(16);
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private RelayerLanes instance(String owner) {
    RelayerDispatcher dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(memory)
                .options(DispatchFixture.fastOptions().build())
                .build());
    RelayerLanes lanes =
        fx.track(
            RelayerLanes.builder(dispatcher)
                .owner(owner)
                .options(DispatchFixture.fastLanes().listen(false).threads(1).build())
                .build());
    lanes.start();
    return lanes;
  }

  /** Every lane owned by exactly one instance, shares of the given sizes. */
  private static boolean spread(List<RelayerLanes> instances, int... sizes) {
    Set<Integer> union = new HashSet<>();
    List<Integer> actual = new ArrayList<>();
    for (RelayerLanes lanes : instances) {
      Set<Integer> owned = lanes.ownedLanes();
      for (int lane : owned) {
        if (!union.add(lane)) {
          return false;
        }
      }
      actual.add(owned.size());
    }
    List<Integer> expected = new ArrayList<>();
    for (int size : sizes) {
      expected.add(size);
    }
    return union.size() == StoreOptions.DEFAULT_LANES && actual.equals(expected);
  }

  @Test
  void instancesShareTheLanesEvenlyAndTakeOverTheLanesOfOneThatCloses() {
    RelayerLanes a = instance("instance-a");
    RelayerLanes b = instance("instance-b");
    RelayerLanes c = instance("instance-c");

    await().atMost(WAIT).until(() -> spread(List.of(a, b, c), 6, 5, 5));
    // Ownership can reach its spread before instance a's next balancing round has seen the others.
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(a.assignedLanes()).containsExactly(0, 3, 6, 9, 12, 15));

    c.close();
    await().atMost(WAIT).until(() -> spread(List.of(a, b), 8, 8));
    assertThat(HealthReads.of(fx.store).liveLeases(fx.dsl, "instance/"))
        .extracting(l -> l.owner())
        .containsExactly("instance-a", "instance-b");

    RelayerLanes d = instance("instance-d");
    await().atMost(WAIT).until(() -> spread(List.of(a, b, d), 6, 5, 5));
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(d.assignedLanes()).containsExactly(2, 5, 8, 11, 14));
  }
}
