package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.ordered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.store.NewMessage;
import dev.relayer.store.StoreOptions;
import dev.relayer.testkit.transport.InMemoryTransport;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Commit-to-send goes through wake-ups, not polling: with a 60 s poll interval every message here
 * is sent long before the first poll, and the pass that sent it was started by a wake-up.
 */
class LaneWakeupsIT {

  /** Far beyond every wait of this class: a message sent within a wait was not polled for. */
  static final Duration POLL = Duration.ofSeconds(60);

  static final Duration WAIT = Duration.ofSeconds(15);
  static final Set<Integer> ALL_LANES =
      IntStream.range(0, StoreOptions.DEFAULT_LANES).boxed().collect(Collectors.toSet());

  DispatchFixture fx;
  InMemoryTransport memory;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture();
    memory = InMemoryTransport.named("memory");
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private RelayerDispatcher dispatcher() {
    RelayerDispatcher dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(memory)
                .options(DispatchFixture.fastOptions().build())
                .build());
    dispatcher.start();
    return dispatcher;
  }

  /** Started lanes that own every lane and have finished their first passes. */
  private RelayerLanes startedLanes(RelayerDispatcher dispatcher, boolean listen) {
    RelayerLanes lanes =
        fx.track(
            RelayerLanes.builder(dispatcher)
                .owner("owner")
                .options(
                    DispatchFixture.fastLanes()
                        .pollInterval(POLL)
                        .leaseDuration(Duration.ofSeconds(30))
                        .listen(listen)
                        .build())
                .build());
    lanes.start();
    await().atMost(WAIT).until(() -> lanes.ownedLanes().equals(ALL_LANES));
    if (listen) {
      await().atMost(WAIT).until(() -> lanes.stats().listenConnects() == 1);
    }
    // Let the passes started by taking the lanes (and by the first connect) finish.
    await().pollDelay(Duration.ofMillis(300)).atMost(WAIT).until(() -> true);
    return lanes;
  }

  private void enqueue(DSLContext context, NewMessage message) {
    context.transaction(tx -> fx.store.enqueue(tx.dsl(), message));
  }

  @Test
  void aCommitThroughTheLocalDispatcherWakesItsLaneOwnerInProcess() {
    RelayerDispatcher dispatcher = dispatcher();
    RelayerLanes lanes = startedLanes(dispatcher, false);
    LaneStats before = lanes.stats();
    NewMessage message = ordered("customer-1");

    enqueue(fx.app(dispatcher), message);

    await().atMost(WAIT).until(() -> memory.deliveredIds().contains(message.messageId()));
    LaneStats after = lanes.stats();
    assertThat(after.wakeupPasses()).isGreaterThan(before.wakeupPasses());
    assertThat(after.pollPasses()).as("no poll has happened yet").isZero();
    assertThat(after.duePasses()).isZero();
    assertThat(after.listenConnects()).as("poll-only mode opens no listener").isZero();
  }

  @Test
  void aCommitElsewhereWakesTheLaneOwnerThroughANotification() {
    RelayerDispatcher owner = dispatcher();
    RelayerLanes lanes = startedLanes(owner, true);
    long notificationsBefore = lanes.stats().notifications();
    NewMessage message = ordered("customer-2");

    // A plain transaction, as another instance (or a tool) would write: no in-process hand-off.
    enqueue(fx.dsl, message);

    await().atMost(WAIT).until(() -> memory.deliveredIds().contains(message.messageId()));
    LaneStats after = lanes.stats();
    assertThat(after.notifications()).isGreaterThan(notificationsBefore);
    assertThat(after.pollPasses()).isZero();
    assertThat(after.duePasses()).isZero();
  }

  @Test
  void aTerminatedListeningConnectionIsReplacedWithoutRestartingAnything() {
    RelayerDispatcher owner = dispatcher();
    RelayerLanes lanes = startedLanes(owner, true);
    int firstPid = lanes.listenerBackendPid();
    assertThat(firstPid).isPositive();

    Boolean terminated =
        fx.dsl.fetchValue(
            DSL.select(DSL.function("pg_terminate_backend", Boolean.class, DSL.val(firstPid))));
    assertThat(terminated).isTrue();
    await().atMost(WAIT).until(() -> lanes.stats().listenConnects() == 2);
    assertThat(lanes.listenerBackendPid()).isNotEqualTo(firstPid);
    await().pollDelay(Duration.ofMillis(300)).atMost(WAIT).until(() -> true);
    long notificationsBefore = lanes.stats().notifications();
    NewMessage message = ordered("customer-3");

    enqueue(fx.dsl, message);

    await().atMost(WAIT).until(() -> memory.deliveredIds().contains(message.messageId()));
    assertThat(lanes.stats().notifications()).isGreaterThan(notificationsBefore);
    assertThat(lanes.stats().pollPasses()).isZero();
  }

  @Test
  void withNotificationsOffAndNoListenerTheLanesFallBackToPolling() {
    RelayerDispatcher owner = dispatcher();
    RelayerLanes lanes =
        fx.track(
            RelayerLanes.builder(owner)
                .options(
                    DispatchFixture.fastLanes()
                        .pollInterval(Duration.ofMillis(300))
                        .listen(false)
                        .build())
                .build());
    lanes.start();
    var quiet =
        dev.relayer.store.RelayerStore.create(StoreOptions.defaults().withLaneNotifications(false));
    NewMessage message = ordered("customer-4");

    quiet.enqueue(fx.dsl, message);

    await().atMost(WAIT).until(() -> memory.deliveredIds().contains(message.messageId()));
    assertThat(lanes.stats().pollPasses() + lanes.stats().acquirePasses()).isPositive();
  }
}
