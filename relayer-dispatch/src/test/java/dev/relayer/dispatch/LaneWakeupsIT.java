package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.ordered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.store.Lanes;
import dev.relayer.store.NewMessage;
import dev.relayer.store.StoreOptions;
import dev.relayer.transport.memory.InMemoryTransport;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Commit-to-send goes through wake-ups, not polling: with a 60 s poll interval every message here
 * is sent long before the first poll, and the pass that sent it was started by a wake-up. The tests
 * of the safety net (no hook, no notifications) poll every 300 ms instead.
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

  /**
   * A dispatcher standing for another instance: started, no lanes, on a pool of its own (so its
   * notifier's session is never the one the application's transaction ran on).
   */
  private RelayerDispatcher otherInstance() {
    RelayerDispatcher writer = fx.dispatcherOnOwnPool(2, true);
    writer.start();
    return writer;
  }

  /** Waits up to {@code millis} for the first notifications, then collects any that follow. */
  static List<PGNotification> notifications(PGConnection pg, int millis) throws Exception {
    List<PGNotification> all = new ArrayList<>();
    PGNotification[] batch = pg.getNotifications(millis);
    while (batch != null && batch.length > 0) {
      all.addAll(List.of(batch));
      batch = pg.getNotifications(200);
    }
    return all;
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
  void aCommitInAnotherInstanceWakesTheLaneOwnerThroughANotificationSentAfterItsCommit()
      throws Exception {
    RelayerDispatcher owner = dispatcher();
    RelayerLanes lanes = startedLanes(owner, true);
    // Another instance: a dispatcher of its own (no lanes), its application's commits hooked.
    RelayerDispatcher writer = otherInstance();
    long notificationsBefore = lanes.stats().notifications();
    NewMessage message = ordered("customer-2");
    int lane = Lanes.laneOf("customer-2", StoreOptions.DEFAULT_LANES);

    try (Connection listener = fx.listening()) {
      PGConnection pg = listener.unwrap(PGConnection.class);
      int[] appBackend = new int[1];
      fx.app(writer)
          .transaction(
              tx -> {
                appBackend[0] = tx.dsl().fetchValue(DSL.field("pg_backend_pid()", Integer.class));
                fx.store.enqueue(tx.dsl(), message);
              });

      await().atMost(WAIT).until(() -> memory.deliveredIds().contains(message.messageId()));
      List<PGNotification> received = notifications(pg, 2_000);
      assertThat(received).isNotEmpty();
      assertThat(received)
          .allSatisfy(
              n ->
                  assertThat(n.getPID())
                      .as("sent by another session than the application's transaction")
                      .isNotEqualTo(appBackend[0]));
      assertThat(received)
          .flatExtracting(n -> List.copyOf(Lanes.lanesIn(n.getParameter())))
          .contains(lane);
    }
    LaneStats after = lanes.stats();
    assertThat(after.notifications()).isGreaterThan(notificationsBefore);
    assertThat(after.pollPasses()).isZero();
    assertThat(after.duePasses()).isZero();
  }

  @Test
  void lanesThisProcessServesAreWokenInProcessAndNotAnnounced() throws Exception {
    RelayerDispatcher dispatcher = dispatcher();
    RelayerLanes lanes = startedLanes(dispatcher, true);
    long notificationsBefore = lanes.stats().notifications();
    NewMessage message = ordered("customer-5");

    try (Connection listener = fx.listening()) {
      PGConnection pg = listener.unwrap(PGConnection.class);
      enqueue(fx.app(dispatcher), message);

      await().atMost(WAIT).until(() -> memory.deliveredIds().contains(message.messageId()));
      assertThat(notifications(pg, 500)).as("no instance needed telling").isEmpty();
    }
    assertThat(lanes.stats().notifications()).isEqualTo(notificationsBefore);
    assertThat(lanes.stats().wakeupPasses()).isPositive();
    assertThat(lanes.stats().pollPasses()).isZero();
  }

  @Test
  void anOrderedEnqueueWithoutTheAfterCommitHookIsFoundByThePoll() throws Exception {
    RelayerDispatcher owner = dispatcher();
    RelayerLanes lanes =
        fx.track(
            RelayerLanes.builder(owner)
                .options(
                    DispatchFixture.fastLanes()
                        .pollInterval(Duration.ofMillis(300))
                        .listen(true)
                        .build())
                .build());
    lanes.start();
    await().atMost(WAIT).until(() -> lanes.ownedLanes().equals(ALL_LANES));
    await().atMost(WAIT).until(() -> lanes.stats().listenConnects() == 1);
    long notificationsBefore = lanes.stats().notifications();
    long pollsBefore = lanes.stats().pollPasses();
    NewMessage message = ordered("customer-6");

    // A plain transaction, as a tool or an unhooked transaction manager would write.
    enqueue(fx.dsl, message);

    await().atMost(WAIT).until(() -> memory.deliveredIds().contains(message.messageId()));
    assertThat(lanes.stats().notifications())
        .as("nobody announced it")
        .isEqualTo(notificationsBefore);
    assertThat(lanes.stats().pollPasses()).isGreaterThan(pollsBefore);
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

    enqueue(fx.app(otherInstance()), message);

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
