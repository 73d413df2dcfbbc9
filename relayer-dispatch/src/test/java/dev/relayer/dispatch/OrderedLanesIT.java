package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.keysInLane;
import static dev.relayer.dispatch.DispatchFixture.ordered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.NewMessage;
import dev.relayer.store.StoreOptions;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.LaneClaim;
import dev.relayer.store.pass.LanePass;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Lane passes run one at a time on the test thread: what one pass claims, sends and gives back. */
class OrderedLanesIT {

  static final int LANE = 3;

  DispatchFixture fx;
  List<String> keys;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture();
    keys = keysInLane(LANE, 3, StoreOptions.DEFAULT_LANES);
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private RelayerLanes lanes(InMemoryTransport transport, DispatchOptions options) {
    return lanes(transport, options, LaneOptions.defaults());
  }

  private RelayerLanes lanes(
      InMemoryTransport transport, DispatchOptions options, LaneOptions laneOptions) {
    RelayerDispatcher dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(transport)
                .options(options)
                .build());
    return fx.track(RelayerLanes.builder(dispatcher).owner("solo").options(laneOptions).build());
  }

  private List<UUID> enqueue(String key, int count) {
    List<UUID> written = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      NewMessage message = ordered(key);
      fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), message));
      written.add(message.messageId());
    }
    return written;
  }

  private static List<UUID> deliveredOf(InMemoryTransport transport, String key) {
    return transport.deliveries().stream()
        .filter(d -> key.equals(d.message().orderingKey()))
        .map(d -> d.message().messageId())
        .toList();
  }

  private int attemptsOf(UUID messageId) {
    return fx.dsl.fetchValue(
        DSL.select(DSL.field(DSL.name("attempts"), Integer.class))
            .from(DSL.table(DSL.name("public", "relayer_outbox")))
            .where(DSL.field(DSL.name("message_id"), UUID.class).eq(messageId)));
  }

  /** Lanes over {@code transport} whose every pass makes one claim. */
  private RelayerLanes lanesOneClaimAPass(InMemoryTransport transport) {
    return lanes(
        transport,
        DispatchFixture.fastOptions().build(),
        LaneOptions.builder().claimsPerPass(1).build());
  }

  @Test
  void onAPlainTransportOneClaimTakesEachKeysRunAndSendsItInWaves() {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    RelayerLanes lanes = lanesOneClaimAPass(memory);
    List<UUID> a = enqueue(keys.get(0), 3);
    List<UUID> b = enqueue(keys.get(1), 2);

    LanePassResult first = lanes.passOnce(LANE);
    assertThat(first.owner()).isTrue();
    assertThat(first.claimed()).as("one claim, both runs").isEqualTo(5);
    assertThat(first.sent()).isEqualTo(5);
    assertThat(memory.batchCount())
        .as("[a1 b1] [a2 b2] [a3]: a key's next row only after its previous one was accepted")
        .isEqualTo(3);
    LanePassResult idle = lanes.passOnce(LANE);
    assertThat(idle.claimed()).isZero();
    assertThat(idle.more()).isFalse();

    assertThat(deliveredOf(memory, keys.get(0))).containsExactlyElementsOf(a);
    assertThat(deliveredOf(memory, keys.get(1))).containsExactlyElementsOf(b);
    assertThat(fx.outboxCount()).isZero();
    assertThat(lanes.ownedLanes()).containsExactly(LANE);
  }

  @Test
  void onAPlainTransportARefusalInTheMiddleOfARunStopsOnlyItsKey() {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    RelayerLanes lanes = lanesOneClaimAPass(memory);
    List<UUID> a = enqueue(keys.get(0), 4);
    List<UUID> b = enqueue(keys.get(1), 3);
    memory.reject(m -> m.messageId().equals(a.get(1)), "refused");

    LanePassResult pass = lanes.passOnce(LANE);

    assertThat(pass.claimed()).isEqualTo(7);
    assertThat(pass.sent()).as("a1, and b's whole run").isEqualTo(4);
    assertThat(pass.failed()).as("a2").isEqualTo(1);
    assertThat(pass.givenBack()).as("a3 and a4, never attempted").isEqualTo(2);
    assertThat(deliveredOf(memory, keys.get(0))).containsExactly(a.get(0));
    assertThat(deliveredOf(memory, keys.get(1))).containsExactlyElementsOf(b);
    assertThat(attemptsOf(a.get(1))).isEqualTo(1);
    assertThat(attemptsOf(a.get(2))).as("given back with its attempt refunded").isZero();
    assertThat(attemptsOf(a.get(3))).isZero();
  }

  @Test
  void onePassServesSeveralLanesInOneClaimAndLeavesALaneHeldElsewhere() {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    RelayerLanes lanes = lanes(memory, DispatchFixture.fastOptions().build());
    int other = LANE + 1;
    int elsewhere = LANE + 2;
    String otherKey = keysInLane(other, 1, StoreOptions.DEFAULT_LANES).get(0);
    String elsewhereKey = keysInLane(elsewhere, 1, StoreOptions.DEFAULT_LANES).get(0);
    LeaseRequest held = new LeaseRequest("lane/" + elsewhere, "another", Duration.ofMinutes(1));
    assertThat(fx.holdLease(held).acquired()).isTrue();
    List<UUID> a = enqueue(keys.get(0), 2);
    List<UUID> b = enqueue(otherKey, 2);
    enqueue(elsewhereKey, 1);

    Map<Integer, LanePassResult> pass = lanes.passOnce(List.of(LANE, other, elsewhere));

    assertThat(pass.keySet()).containsExactly(LANE, other, elsewhere);
    assertThat(pass.get(LANE).sent()).isEqualTo(2);
    assertThat(pass.get(other).sent()).isEqualTo(2);
    assertThat(pass.get(elsewhere).owner()).as("its lease is another owner's").isFalse();
    assertThat(pass.get(elsewhere).claimed()).isZero();
    assertThat(memory.batchCount()).as("[a1 b1] [a2 b2]: each claim spans both lanes").isEqualTo(2);
    assertThat(deliveredOf(memory, keys.get(0))).containsExactlyElementsOf(a);
    assertThat(deliveredOf(memory, otherKey)).containsExactlyElementsOf(b);
    assertThat(fx.outboxCount()).as("the row of the lane held elsewhere waits").isEqualTo(1);
    assertThat(lanes.ownedLanes()).containsExactlyInAnyOrder(LANE, other);
    assertThatThrownBy(() -> lanes.passOnce(List.of(LANE, LANE)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("distinct");
  }

  @Test
  void aPassClaimsAgainInItsTransactionWhileEveryClaimWasSent() {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    RelayerLanes lanes = lanes(memory, DispatchFixture.fastOptions().build());
    List<UUID> a = enqueue(keys.get(0), 3);
    List<UUID> b = enqueue(keys.get(1), 2);

    LanePassResult pass = lanes.passOnce(LANE);

    assertThat(pass.sent()).isEqualTo(5);
    assertThat(pass.more()).as("the last claim found nothing").isFalse();
    assertThat(memory.batchCount()).as("[a1 b1] [a2 b2] [a3]").isEqualTo(3);
    assertThat(deliveredOf(memory, keys.get(0))).containsExactlyElementsOf(a);
    assertThat(deliveredOf(memory, keys.get(1))).containsExactlyElementsOf(b);
    assertThat(fx.outboxCount()).isZero();
  }

  @Test
  void aPassStopsClaimingAtClaimsPerPass() {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    RelayerLanes lanes =
        lanes(
            memory,
            DispatchFixture.fastOptions().build(),
            LaneOptions.builder().claimsPerPass(2).rowsPerKey(1).build());
    List<UUID> a = enqueue(keys.get(0), 3);

    LanePassResult first = lanes.passOnce(LANE);
    assertThat(first.sent()).isEqualTo(2);
    assertThat(first.more()).isTrue();
    assertThat(fx.outboxCount()).as("the pass committed its two claims").isEqualTo(1);
    assertThat(lanes.passOnce(LANE).sent()).isEqualTo(1);
    assertThat(deliveredOf(memory, keys.get(0))).containsExactlyElementsOf(a);
  }

  @Test
  void onABatchOrderTransportConsecutiveRowsOfAKeyShareNativeBatches() {
    InMemoryTransport ordered = InMemoryTransport.of("memory", 3, true);
    RelayerLanes lanes = lanes(ordered, DispatchFixture.fastOptions().build());
    List<UUID> a = enqueue(keys.get(0), 5);
    List<UUID> b = enqueue(keys.get(1), 1);

    LanePassResult pass = lanes.passOnce(LANE);

    assertThat(pass.sent()).isEqualTo(6);
    assertThat(ordered.batchCount()).as("[a1 a2 a3] then [a4 a5 b1]").isEqualTo(2);
    assertThat(deliveredOf(ordered, keys.get(0))).containsExactlyElementsOf(a);
    assertThat(deliveredOf(ordered, keys.get(1))).containsExactlyElementsOf(b);
  }

  @Test
  void aRejectedRowStopsItsKeyAndRowsNotSentAreGivenBackWithoutSpendingAnAttempt() {
    InMemoryTransport ordered = InMemoryTransport.of("memory", 10, true);
    RelayerLanes lanes =
        lanes(
            ordered,
            DispatchFixture.fastOptions()
                .backoffInitial(Duration.ofMinutes(1))
                .backoffMax(Duration.ofMinutes(1))
                .build());
    List<UUID> a = enqueue(keys.get(0), 3);
    List<UUID> b = enqueue(keys.get(1), 1);
    ordered.reject(m -> m.messageId().equals(a.get(1)), "broker said no");

    LanePassResult first = lanes.passOnce(LANE);

    assertThat(first.sent()).as("a1 only: the batch stops at a2").isEqualTo(1);
    assertThat(first.failed()).isEqualTo(1);
    assertThat(first.givenBack()).as("a3 and b1 were not sent").isEqualTo(2);
    assertThat(attemptsOf(a.get(1))).isEqualTo(1);
    assertThat(attemptsOf(a.get(2))).isZero();
    assertThat(attemptsOf(b.get(0))).isZero();

    LanePassResult second = lanes.passOnce(LANE);
    assertThat(second.sent()).as("b goes on; a waits for its backoff").isEqualTo(1);
    assertThat(deliveredOf(ordered, keys.get(1))).containsExactlyElementsOf(b);
    assertThat(deliveredOf(ordered, keys.get(0))).containsExactly(a.get(0));
    assertThat(attemptsOf(a.get(2))).isZero();
  }

  @Test
  void aHeadThatFailedBeforeTravelsAloneSoItCannotStopHealthyKeys() {
    InMemoryTransport ordered = InMemoryTransport.of("memory", 10, true);
    RelayerLanes lanes =
        lanes(ordered, DispatchFixture.fastOptions().backoffInitial(Duration.ofMillis(1)).build());
    List<UUID> a = enqueue(keys.get(0), 1);
    ordered.reject(m -> m.messageId().equals(a.get(0)), "still broken");
    assertThat(lanes.passOnce(LANE).failed()).isEqualTo(1);
    List<UUID> b = enqueue(keys.get(1), 2);
    List<UUID> c = enqueue(keys.get(2), 1);
    ordered.clear();

    LanePassResult pass = lanes.passOnce(LANE);

    assertThat(pass.sent()).isEqualTo(3);
    assertThat(deliveredOf(ordered, keys.get(1))).containsExactlyElementsOf(b);
    assertThat(deliveredOf(ordered, keys.get(2))).containsExactlyElementsOf(c);
    assertThat(ordered.batchCount()).as("[a1] alone, then [b1 b2 c1]").isEqualTo(2);
  }

  @Test
  void aHeadMarkedInFlightIsSentAloneAfterThePassThatSentTheOtherKeysOfItsOnlyLane()
      throws InterruptedException {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    // One row a key per claim, so that the pass's one claim holds the two heads only.
    RelayerLanes lanes =
        lanes(
            memory,
            DispatchFixture.fastOptions().build(),
            LaneOptions.builder().rowsPerKey(1).build());
    List<UUID> p = enqueue(keys.get(0), 1);
    List<UUID> k = enqueue(keys.get(1), 3);
    // What a careful step leaves when its sender dies after committing: the head marked in flight
    // under a claim that then runs out.
    // The step ran under the lane's lease, which its owner's graceful stop then gave up.
    LeaseRequest stepLease = new LeaseRequest("lane/" + LANE, "died", Duration.ofMinutes(1));
    List<Long> marked =
        fx.dsl.transactionResult(
            tx -> {
              LanePass step = fx.passes.lanes(tx.dsl(), List.of(LANE), lane -> stepLease);
              Claim claim =
                  step.claim(
                      new LaneClaim(
                          Set.of(LANE), 1, 0, Set.of(), Instant.now(), Duration.ofMillis(100)));
              List<Long> ids = claim.messages().stream().map(ClaimedMessage::id).toList();
              step.markInFlight(claim.token(), ids);
              step.end();
              return ids;
            });
    fx.dsl.transaction(
        tx -> fx.passes.leases().release(tx.dsl(), stepLease.name(), stepLease.owner()));
    assertThat(marked).hasSize(1);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (fx.dsl.fetchExists(
        DSL.selectOne()
            .from(DSL.table(DSL.name("public", "relayer_outbox")))
            .where(DSL.condition("claim_expires_at > now()")))) {
      assertThat(System.nanoTime()).as("the 100 ms claim ran out").isLessThan(deadline);
      Thread.sleep(20);
    }

    // The pass's claim holds the marked head and the other key's head: it gives the first back,
    // sends the second, must not claim again over no lane, and sends the marked head alone after
    // its commit.
    LanePassResult pass = lanes.passOnce(LANE);

    assertThat(pass.sent()).isEqualTo(2);
    assertThat(memory.deliveredIds()).containsExactly(k.get(0), p.get(0));
    assertThat(memory.batchCount()).as("[k1], then [p1] alone").isEqualTo(2);
    for (int i = 0; i < 5 && fx.outboxCount() > 0; i++) {
      lanes.passOnce(LANE);
    }
    assertThat(fx.outboxCount()).isZero();
    assertThat(deliveredOf(memory, keys.get(1))).containsExactlyElementsOf(k);
    assertThat(deliveredOf(memory, keys.get(0))).containsExactlyElementsOf(p);
  }

  @Test
  void theSweeperNeverSendsOrderedRows() {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    RelayerDispatcher dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(memory)
                .options(DispatchFixture.fastOptions().build())
                .build());
    RelayerMaintenance maintenance =
        fx.track(RelayerMaintenance.create(dispatcher, DispatchFixture.fastMaintenance().build()));
    enqueue(keys.get(0), 2);

    assertThat(maintenance.sweepOnce().claimed()).isZero();
    assertThat(memory.attempts()).isEmpty();
    assertThat(fx.outboxCount()).isEqualTo(2);
  }

  @Test
  void aSecondInstanceCannotPassOverALaneWhoseLeaseIsHeld() {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    RelayerLanes first = lanes(memory, DispatchFixture.fastOptions().build());
    RelayerDispatcher other =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(memory)
                .options(DispatchFixture.fastOptions().build())
                .build());
    RelayerLanes second = fx.track(RelayerLanes.builder(other).owner("other").build());
    enqueue(keys.get(0), 1);

    assertThat(first.passOnce(LANE).owner()).isTrue();
    LanePassResult refused = second.passOnce(LANE);
    assertThat(refused.owner()).isFalse();
    assertThat(refused.claimed()).isZero();
    assertThat(HealthReads.of(fx.store).lease(fx.dsl, "lane/" + LANE).orElseThrow().owner())
        .isEqualTo("solo");
  }
}
