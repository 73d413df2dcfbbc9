package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.keysInLane;
import static dev.relayer.dispatch.DispatchFixture.ordered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.NewMessage;
import dev.relayer.store.StoreOptions;
import dev.relayer.store.ops.ParkedKey;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.Record;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A poison head parks its key only; each operator action does what it says. */
class ParkedKeysIT {

  static final int LANE = 6;
  static final Duration WAIT = Duration.ofSeconds(30);

  DispatchFixture fx;
  InMemoryTransport memory;
  Set<UUID> poison = ConcurrentHashMap.newKeySet();
  List<String> parkedEvents = Collections.synchronizedList(new ArrayList<>());
  RelayerOperator operator;
  List<String> keys;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture();
    memory = InMemoryTransport.named("memory");
    memory.reject(m -> poison.contains(m.messageId()), "broker rejected: schema mismatch");
    RelayerDispatcher dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(memory)
                .options(DispatchFixture.fastOptions().maxAttempts(3).build())
                .eventListener(
                    new RelayerEventListener() {
                      @Override
                      public void parked(DeliveryEvent event, String error) {
                        parkedEvents.add(event.orderingKey());
                      }
                    })
                .build());
    dispatcher.start();
    RelayerLanes lanes =
        fx.track(
            RelayerLanes.builder(dispatcher).options(DispatchFixture.fastLanes().build()).build());
    lanes.start();
    operator = RelayerOperator.create(fx.store, fx.dsl);
    keys = keysInLane(LANE, 4, StoreOptions.DEFAULT_LANES);
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private List<UUID> enqueue(String key, int count) {
    return enqueue(key, count, false);
  }

  /** Writes {@code count} messages of {@code key}; the first is poison (before it is written). */
  private List<UUID> enqueue(String key, int count, boolean poisonFirst) {
    List<UUID> written = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      NewMessage message = ordered(key);
      if (i == 0 && poisonFirst) {
        poison.add(message.messageId());
      }
      fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), message));
      written.add(message.messageId());
    }
    return written;
  }

  private List<UUID> deliveredOf(String key) {
    return memory.deliveries().stream()
        .filter(d -> key.equals(d.message().orderingKey()))
        .map(d -> d.message().messageId())
        .distinct()
        .toList();
  }

  private long attemptsAtBroker(UUID messageId) {
    return memory.attempts().stream()
        .filter(a -> a.message().messageId().equals(messageId))
        .count();
  }

  private List<Record> deadRows() {
    return new ArrayList<>(
        fx.dsl.selectFrom(DSL.table(DSL.name("public", "relayer_outbox_dead"))).fetch());
  }

  @Test
  void aPoisonHeadParksItsKeyWhileOtherKeysOfTheLaneKeepFlowing() {
    String bad = keys.get(0);
    String good = keys.get(1);
    List<UUID> badRows = enqueue(bad, 3, true);
    List<UUID> goodRows = new ArrayList<>(enqueue(good, 3));

    await().atMost(WAIT).until(() -> operator.parkedKey(bad).isPresent());
    goodRows.addAll(enqueue(good, 3));
    await().atMost(WAIT).until(() -> deliveredOf(good).size() == 6);

    assertThat(deliveredOf(good)).containsExactlyElementsOf(goodRows);
    assertThat(deliveredOf(bad)).as("nothing behind the parked head").isEmpty();
    assertThat(attemptsAtBroker(badRows.get(0))).isEqualTo(3);
    assertThat(attemptsAtBroker(badRows.get(1))).isZero();
    assertThat(parkedEvents).containsExactly(bad);

    ParkedKey parked = operator.parkedKeys().get(0);
    assertThat(operator.parkedKeys()).hasSize(1);
    assertThat(parked.orderingKey()).isEqualTo(bad);
    assertThat(parked.lane()).isEqualTo(LANE);
    assertThat(parked.messageId()).isEqualTo(badRows.get(0));
    assertThat(parked.attempts()).isEqualTo(3);
    assertThat(parked.lastError()).isEqualTo("broker rejected: schema mismatch");
    assertThat(parked.parkedAt()).isBefore(Instant.now().plusSeconds(1));
    assertThat(operator.parkedKeys(LANE)).containsExactly(parked);
    assertThat(operator.parkedKeys((LANE + 1) % StoreOptions.DEFAULT_LANES)).isEmpty();
  }

  @Test
  void retryingTheHeadGivesItFreshAttemptsAndMovingItToDeadLetsTheKeyGoOn() {
    String bad = keys.get(0);
    List<UUID> rows = enqueue(bad, 3, true);
    await().atMost(WAIT).until(() -> operator.parkedKey(bad).isPresent());

    assertThat(operator.retryHead(bad)).isTrue();
    await().atMost(WAIT).until(() -> attemptsAtBroker(rows.get(0)) == 6);
    await().atMost(WAIT).until(() -> operator.parkedKey(bad).isPresent());
    assertThat(operator.parkedKey(bad).orElseThrow().attempts()).isEqualTo(3);
    assertThat(deliveredOf(bad)).isEmpty();

    assertThat(operator.moveHeadToDead(bad)).isTrue();
    await().atMost(WAIT).until(() -> deliveredOf(bad).size() == 2);
    assertThat(deliveredOf(bad)).containsExactly(rows.get(1), rows.get(2));
    assertThat(deadRows())
        .singleElement()
        .satisfies(
            dead -> {
              assertThat(dead.get("message_id")).isEqualTo(rows.get(0));
              assertThat(dead.get("reason")).isEqualTo("operator");
              assertThat(dead.get("last_error", String.class))
                  .isEqualTo("broker rejected: schema mismatch");
            });
    assertThat(operator.parkedKeys()).isEmpty();
    assertThat(operator.retryHead(bad)).as("nothing parked any more").isFalse();
    assertThat(operator.moveHeadToDead(bad)).isFalse();
  }

  @Test
  void releasingALaneRetriesItsParkedKeysOnlyAndReleasingAllRetriesTheRest() {
    String first = keys.get(0);
    String second = keys.get(1);
    String elsewhere = keysInLane(LANE + 1, 1, StoreOptions.DEFAULT_LANES).get(0);
    List<UUID> a = enqueue(first, 2, true);
    List<UUID> b = enqueue(second, 1, true);
    List<UUID> c = enqueue(elsewhere, 1, true);
    await().atMost(WAIT).until(() -> operator.parkedKeys().size() == 3);
    poison.clear();

    assertThat(operator.releaseLane(LANE)).isEqualTo(2);
    await()
        .atMost(WAIT)
        .until(() -> deliveredOf(first).size() == 2 && deliveredOf(second).size() == 1);
    assertThat(deliveredOf(first)).containsExactlyElementsOf(a);
    assertThat(deliveredOf(second)).containsExactlyElementsOf(b);
    assertThat(operator.parkedKeys()).extracting(ParkedKey::orderingKey).containsExactly(elsewhere);

    assertThat(operator.releaseAll()).isEqualTo(1);
    await().atMost(WAIT).until(() -> deliveredOf(elsewhere).size() == 1);
    assertThat(deliveredOf(elsewhere)).containsExactlyElementsOf(c);
    assertThat(operator.parkedKeys()).isEmpty();
    assertThat(operator.releaseAll()).isZero();
  }

  @Test
  void operatorActionsRejectBadInput() {
    assertThatThrownBy(() -> operator.retryHead(" "))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("ordering key must not be blank");
    assertThatThrownBy(() -> operator.moveHeadToDead(null))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> operator.releaseLane(-1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("lane must be between 0 and 15, was -1");
    assertThatThrownBy(() -> operator.parkedKeys(16)).isInstanceOf(InvalidInputException.class);
    assertThat(operator.retryHead("never-seen")).isFalse();
  }
}
