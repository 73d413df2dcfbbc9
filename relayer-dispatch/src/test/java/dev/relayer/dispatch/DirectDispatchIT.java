package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.relayer.store.NewMessage;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DirectDispatchIT {

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

  private RelayerDispatcher dispatcher(DispatchOptions options) {
    RelayerDispatcher dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl).transport(memory).options(options).build());
    dispatcher.start();
    return dispatcher;
  }

  @Test
  void commitHandsTheRowsToTheDispatcherWhichSendsAndDeletesThem() {
    RelayerDispatcher dispatcher = dispatcher(DispatchFixture.fastOptions().build());
    DSLContext app = fx.app(dispatcher);
    NewMessage message = message("orders");

    app.transaction(tx -> fx.store.enqueue(tx.dsl(), message));

    await().atMost(Duration.ofSeconds(20)).until(() -> memory.deliveries().size() == 1);
    var delivered = memory.deliveries().get(0);
    assertThat(delivered.destination()).isEqualTo("orders");
    assertThat(delivered.message().messageId()).isEqualTo(message.messageId());
    assertThat(delivered.message().headers()).isEqualTo(message.headers());
    assertThat(delivered.message().body()).isEqualTo(message.body());
    assertThat(delivered.message().messageType()).isEqualTo("OrderPlaced");
    await().atMost(Duration.ofSeconds(20)).until(() -> fx.outboxCount() == 0);
  }

  @Test
  void rollbackSendsNothing() throws Exception {
    RelayerDispatcher dispatcher = dispatcher(DispatchFixture.fastOptions().build());
    DSLContext app = fx.app(dispatcher);

    assertThatThrownBy(
            () ->
                app.transaction(
                    tx -> {
                      fx.store.enqueue(tx.dsl(), message("orders"));
                      throw new IllegalStateException("business rule failed");
                    }))
        .hasMessage("business rule failed");
    // A committed transaction after it proves the dispatcher is running, and FIFO proves order.
    app.transaction(tx -> fx.store.enqueue(tx.dsl(), message("after")));

    await().atMost(Duration.ofSeconds(20)).until(() -> memory.deliveries().size() == 1);
    assertThat(memory.deliveries()).extracting(d -> d.destination()).containsExactly("after");
    assertThat(fx.outboxCount()).isZero();
    assertThat(dispatcher.queuedIds()).isZero();
  }

  @Test
  void nestedTransactionsHandOverWhenTheOutermostCommits() {
    RelayerDispatcher dispatcher = dispatcher(DispatchFixture.fastOptions().build());
    DSLContext app = fx.app(dispatcher);

    app.transaction(
        outer -> {
          fx.store.enqueue(outer.dsl(), message("outer"));
          outer.dsl().transaction(inner -> fx.store.enqueue(inner.dsl(), message("inner")));
          assertThat(dispatcher.queuedIds()).as("nothing before the outer commit").isZero();
        });

    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> memory.deliveries().size() == 2 && fx.outboxCount() == 0);
  }

  @Test
  void afterCommitServesOtherTransactionManagers() {
    RelayerDispatcher dispatcher = dispatcher(DispatchFixture.fastOptions().build());
    List<Long> ids =
        fx.dsl.transactionResult(
            tx -> fx.store.enqueue(tx.dsl(), List.of(message("a"), message("b"))));

    dispatcher.afterCommit(ids);

    await().atMost(Duration.ofSeconds(20)).until(() -> memory.deliveries().size() == 2);
  }

  @Test
  void aFullQueueDropsHandOffsWithoutBlockingAndTheSweeperDeliversThem() throws Exception {
    List<Integer> dropped = new ArrayList<>();
    memory.closeGate();
    RelayerDispatcher dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(memory)
                .options(
                    DispatchFixture.fastOptions()
                        .queueCapacity(2)
                        .workers(1)
                        .claimBatchSize(1)
                        .build())
                .eventListener(
                    new dev.relayer.dispatch.spi.RelayerEventListener() {
                      @Override
                      public void handoffDropped(int ids) {
                        synchronized (dropped) {
                          dropped.add(ids);
                        }
                      }
                    })
                .build());
    dispatcher.start();
    DSLContext app = fx.app(dispatcher);
    List<UUID> written = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      NewMessage m = message("m" + i);
      written.add(m.messageId());
      app.transaction(tx -> fx.store.enqueue(tx.dsl(), m));
    }
    synchronized (dropped) {
      assertThat(dropped.stream().mapToInt(Integer::intValue).sum()).isPositive();
    }
    memory.openGate();
    RelayerMaintenance maintenance =
        fx.track(RelayerMaintenance.create(dispatcher, DispatchFixture.fastMaintenance().build()));
    maintenance.start();

    await().atMost(Duration.ofSeconds(30)).until(() -> fx.outboxCount() == 0);
    assertThat(memory.deliveredIds()).containsAll(written);
  }

  @Test
  void directDispatchAndTheSweeperRacingSendEachRowOncePerClaim() throws Exception {
    RelayerDispatcher dispatcher =
        dispatcher(DispatchFixture.fastOptions().workers(2).claimBatchSize(20).build());
    RelayerMaintenance maintenance =
        fx.track(
            RelayerMaintenance.create(
                dispatcher,
                DispatchFixture.fastMaintenance()
                    .batchSize(50)
                    .sweepInterval(Duration.ofMillis(1))
                    .build()));
    maintenance.start();
    DSLContext app = fx.app(dispatcher);
    List<UUID> written = new ArrayList<>();
    for (int t = 0; t < 50; t++) {
      List<NewMessage> batch = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        batch.add(message("race"));
      }
      batch.forEach(m -> written.add(m.messageId()));
      app.transaction(tx -> fx.store.enqueue(tx.dsl(), batch));
    }

    await().atMost(Duration.ofSeconds(60)).until(() -> fx.outboxCount() == 0);
    Map<UUID, Long> sends =
        memory.deliveredIds().stream()
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    assertThat(sends.keySet()).containsExactlyInAnyOrderElementsOf(written);
    assertThat(sends.values()).allMatch(count -> count == 1);
  }
}
