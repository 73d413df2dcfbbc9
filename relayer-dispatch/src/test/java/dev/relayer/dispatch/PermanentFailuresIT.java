package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.keysInLane;
import static dev.relayer.dispatch.DispatchFixture.message;
import static dev.relayer.dispatch.DispatchFixture.ordered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.spi.DeadReason;
import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.NewMessage;
import dev.relayer.store.StoreOptions;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.jooq.Record;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A transport's permanent rejections end a row at once (dead, or its key parked), and what a
 * transport can never send is refused at enqueue.
 */
class PermanentFailuresIT {

  static final Duration WAIT = Duration.ofSeconds(30);

  DispatchFixture fx;
  InMemoryTransport memory;
  List<String> deadEvents = Collections.synchronizedList(new ArrayList<>());
  List<String> parkedEvents = Collections.synchronizedList(new ArrayList<>());

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture();
    memory = InMemoryTransport.named("memory");
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private RelayerDispatcher dispatcher(InMemoryTransport... transports) {
    RelayerDispatcher.Builder builder =
        RelayerDispatcher.builder(fx.store, fx.dsl)
            .options(DispatchFixture.fastOptions().maxAttempts(5).build())
            .eventListener(
                new RelayerEventListener() {
                  @Override
                  public void dead(DeliveryEvent event, DeadReason reason, String error) {
                    deadEvents.add(reason.tag() + ":" + event.messageId());
                  }

                  @Override
                  public void parked(DeliveryEvent event, String error) {
                    parkedEvents.add(event.orderingKey() + ":" + error);
                  }
                });
    for (InMemoryTransport transport : transports) {
      builder.transport(transport);
    }
    RelayerDispatcher dispatcher = fx.track(builder.build());
    dispatcher.start();
    return dispatcher;
  }

  private void startMaintenance(RelayerDispatcher dispatcher) {
    fx.track(RelayerMaintenance.create(dispatcher, DispatchFixture.fastMaintenance().build()))
        .start();
  }

  private List<Record> deadRows() {
    return new ArrayList<>(
        fx.dsl.selectFrom(DSL.table(DSL.name("public", "relayer_outbox_dead"))).fetch());
  }

  private List<Record> outboxRows() {
    return new ArrayList<>(
        fx.dsl
            .selectFrom(DSL.table(DSL.name("public", "relayer_outbox")))
            .orderBy(DSL.field(DSL.name("id")))
            .fetch());
  }

  private long attemptsAtBroker(UUID messageId) {
    return memory.attempts().stream()
        .filter(a -> a.message().messageId().equals(messageId))
        .count();
  }

  @Test
  void aRowRejectedForGoodIsDeadAfterOneAttemptWhileItsNeighboursFlow() {
    NewMessage poison = message("orders");
    memory.rejectPermanently(
        m -> m.messageId().equals(poison.messageId()), "destination refuses this message");
    RelayerDispatcher dispatcher = dispatcher(memory);
    startMaintenance(dispatcher);
    List<NewMessage> neighbours = List.of(message("orders"), message("orders"));

    fx.app(dispatcher)
        .transaction(
            tx ->
                fx.store.enqueue(tx.dsl(), List.of(neighbours.get(0), poison, neighbours.get(1))));

    await().atMost(WAIT).until(() -> fx.outboxCount() == 0);
    assertThat(memory.deliveredIds())
        .containsExactlyInAnyOrder(neighbours.get(0).messageId(), neighbours.get(1).messageId());
    assertThat(deadRows())
        .singleElement()
        .satisfies(
            dead -> {
              assertThat(dead.get("message_id")).isEqualTo(poison.messageId());
              assertThat(dead.get("reason")).isEqualTo("rejected");
              assertThat(dead.get("attempts", Integer.class)).isEqualTo(1);
              assertThat(dead.get("last_error", String.class))
                  .isEqualTo("destination refuses this message");
              assertThat(dead.get("error_fingerprint", String.class)).hasSize(16);
            });
    assertThat(attemptsAtBroker(poison.messageId())).isEqualTo(1);
    assertThat(deadEvents).containsExactly("rejected:" + poison.messageId());
  }

  @Test
  void anInvalidInputExceptionFromSendRejectsItsBatchForGood() {
    InMemoryTransport strict = InMemoryTransport.named("strict");
    strict.failBatches(
        new InvalidInputException("destination 'bad dest' is not a subject: it has whitespace"));
    RelayerDispatcher dispatcher = dispatcher(memory, strict);
    startMaintenance(dispatcher);
    NewMessage healthy = message("orders");
    List<NewMessage> doomed = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      doomed.add(
          NewMessage.builder()
              .transport("strict")
              .destination("bad dest")
              .messageType("T")
              .body(new byte[] {1})
              .build());
    }
    List<NewMessage> all = new ArrayList<>(doomed);
    all.add(healthy);

    fx.app(dispatcher).transaction(tx -> fx.store.enqueue(tx.dsl(), all));

    await().atMost(WAIT).until(() -> fx.outboxCount() == 0);
    assertThat(memory.deliveredIds()).containsExactly(healthy.messageId());
    assertThat(deadRows())
        .hasSize(3)
        .allSatisfy(
            dead -> {
              assertThat(dead.get("reason")).isEqualTo("rejected");
              assertThat(dead.get("attempts", Integer.class)).isEqualTo(1);
              assertThat(dead.get("last_error", String.class))
                  .isEqualTo(
                      "dev.relayer.api.InvalidInputException: destination 'bad dest' is not a"
                          + " subject: it has whitespace");
            });
    assertThat(strict.attempts()).hasSize(3);
  }

  @Test
  void anOrderedHeadRejectedForGoodParksItsKeyAfterOneAttemptWhileOtherKeysFlow() {
    List<String> keys = keysInLane(3, 2, StoreOptions.DEFAULT_LANES);
    String stuck = keys.get(0);
    String flowing = keys.get(1);
    NewMessage poison = ordered(stuck);
    memory.rejectPermanently(
        m -> m.messageId().equals(poison.messageId()), "message type unknown to the broker");
    RelayerDispatcher dispatcher = dispatcher(memory);
    fx.track(RelayerLanes.builder(dispatcher).options(DispatchFixture.fastLanes().build()).build())
        .start();
    NewMessage behindPoison = ordered(stuck);
    List<NewMessage> other = List.of(ordered(flowing), ordered(flowing), ordered(flowing));

    fx.app(dispatcher).transaction(tx -> fx.store.enqueue(tx.dsl(), List.of(poison, behindPoison)));
    fx.app(dispatcher).transaction(tx -> fx.store.enqueue(tx.dsl(), other));

    await()
        .atMost(WAIT)
        .until(
            () ->
                memory.deliveredIds().size() == 3
                    && outboxRows().stream().anyMatch(r -> "parked".equals(r.get("status"))));
    assertThat(memory.deliveredIds())
        .containsExactlyElementsOf(other.stream().map(NewMessage::messageId).toList());
    List<Record> rows = outboxRows();
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0).get("message_id")).isEqualTo(poison.messageId());
    assertThat(rows.get(0).get("status")).isEqualTo("parked");
    assertThat(rows.get(0).get("attempts", Integer.class)).isEqualTo(1);
    assertThat(rows.get(0).get("last_error", String.class))
        .isEqualTo("message type unknown to the broker");
    assertThat(rows.get(1).get("message_id")).isEqualTo(behindPoison.messageId());
    assertThat(rows.get(1).get("status")).isEqualTo("pending");
    assertThat(attemptsAtBroker(poison.messageId())).isEqualTo(1);
    assertThat(attemptsAtBroker(behindPoison.messageId())).isZero();
    assertThat(parkedEvents).containsExactly(stuck + ":message type unknown to the broker");
    assertThat(deadRows()).isEmpty();
  }

  @Test
  void enqueueRefusesAMessageItsTransportCanNeverSendAndWritesNothing() {
    memory.forbid(
        m -> m.messageType().length() > 15, "messageType is longer than this broker carries");
    RelayerDispatcher dispatcher = dispatcher(memory);
    NewMessage good = message("orders");
    NewMessage bad =
        NewMessage.builder()
            .transport("memory")
            .destination("orders")
            .messageType("a.type.far.too.long")
            .body(new byte[] {1})
            .build();
    List<Integer> rowsSeenInTheTransaction = new ArrayList<>();

    fx.app(dispatcher)
        .transaction(
            tx -> {
              assertThatThrownBy(() -> fx.store.enqueue(tx.dsl(), List.of(good, bad)))
                  .isInstanceOf(InvalidInputException.class)
                  .hasMessage("messages[1]: messageType is longer than this broker carries");
              assertThatThrownBy(() -> fx.store.enqueue(tx.dsl(), bad))
                  .isInstanceOf(InvalidInputException.class)
                  .hasMessage("messageType is longer than this broker carries");
              rowsSeenInTheTransaction.add(
                  tx.dsl().fetchCount(DSL.table(DSL.name("public", "relayer_outbox"))));
            });

    assertThat(rowsSeenInTheTransaction).containsExactly(0);
    assertThat(fx.outboxCount()).isZero();
    assertThat(memory.attempts()).isEmpty();
  }

  @Test
  void enqueueWritesAMessageForATransportTheDispatcherDoesNotKnow() {
    memory.forbid(m -> true, "memory refuses everything");
    RelayerDispatcher dispatcher = dispatcher(memory);
    NewMessage elsewhere =
        NewMessage.builder()
            .transport("registered-elsewhere")
            .destination("any destination at all")
            .messageType("T")
            .body(new byte[] {1})
            .build();

    fx.app(dispatcher).transaction(tx -> fx.store.enqueue(tx.dsl(), elsewhere));

    assertThat(outboxRows())
        .singleElement()
        .satisfies(r -> assertThat(r.get("message_id")).isEqualTo(elsewhere.messageId()));
  }

  @Test
  void aClosedDispatcherNoLongerChecksEnqueues() {
    memory.forbid(m -> true, "memory refuses everything");
    RelayerDispatcher dispatcher = dispatcher(memory);
    assertThatThrownBy(
            () -> fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), message("orders"))))
        .isInstanceOf(InvalidInputException.class);

    dispatcher.close();
    fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), message("orders")));

    assertThat(fx.outboxCount()).isEqualTo(1);
  }
}
