package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.store.EnqueueOutcome;
import dev.relayer.store.NewMessage;
import dev.relayer.store.ops.DeadFilter;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An idempotency key lives apart from its message's row: the row is sent and deleted, or moved to
 * the dead table and replayed, and the key still makes a retried request a duplicate, until the
 * maintenance's cleanup deletes it after {@code idempotencyKeyRetention}.
 */
class IdempotencyKeyLifecycleIT {

  static final Duration WAIT = Duration.ofSeconds(30);

  DispatchFixture fx;
  InMemoryTransport memory;
  Set<UUID> poison = ConcurrentHashMap.newKeySet();
  RelayerDispatcher dispatcher;
  DSLContext app;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture();
    memory = InMemoryTransport.named("memory");
    memory.rejectPermanently(m -> poison.contains(m.messageId()), "no route to exchange orders");
    dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(memory)
                .options(DispatchFixture.fastOptions().maxAttempts(1).build())
                .build());
    dispatcher.start();
    app = fx.app(dispatcher);
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private static NewMessage keyed(String key) {
    return NewMessage.builder()
        .transport("memory")
        .destination("orders")
        .messageType("OrderPlaced")
        .idempotencyKey(key)
        .body(key.getBytes(java.nio.charset.StandardCharsets.UTF_8))
        .build();
  }

  private EnqueueOutcome enqueueOnce(NewMessage message) {
    return app.transactionResult(tx -> fx.store.enqueueOnce(tx.dsl(), message));
  }

  private int dead() {
    return fx.dsl.fetchCount(DSL.table(DSL.name("public", "relayer_outbox_dead")));
  }

  private int keys() {
    return fx.dsl.fetchCount(DSL.table(DSL.name("public", "relayer_idempotency_keys")));
  }

  @Test
  void aKeyOutlivesItsSentRowItsDeadRowAndItsReplayUntilTheRetentionDeletesIt() {
    // Sent: the row is delivered and deleted; a retry of the request is still a duplicate.
    NewMessage sent = keyed("order-1");
    assertThat(enqueueOnce(sent).duplicate()).isFalse();
    await().atMost(WAIT).until(() -> memory.deliveredIds().contains(sent.messageId()));
    await().atMost(WAIT).until(() -> fx.outboxCount() == 0);
    EnqueueOutcome retried = enqueueOnce(keyed("order-1"));
    assertThat(retried.duplicate()).isTrue();
    assertThat(retried.messageId()).isEqualTo(sent.messageId());
    assertThat(fx.outboxCount()).as("the duplicate wrote no row").isZero();

    // Dead: the broker refuses the message for good, the row moves to the dead table; a retry is
    // a duplicate, and so it stays once an operator replays the row and it is delivered.
    NewMessage refused = keyed("order-2");
    poison.add(refused.messageId());
    assertThat(enqueueOnce(refused).duplicate()).isFalse();
    await().atMost(WAIT).until(() -> dead() == 1);
    assertThat(enqueueOnce(keyed("order-2")).messageId()).isEqualTo(refused.messageId());
    poison.clear();
    assertThat(RelayerOperator.create(fx.store, fx.dsl).replayDead(DeadFilter.all()).replayed())
        .isOne();
    dispatcher.afterCommit(
        fx.dsl.fetch("select id from public.relayer_outbox").getValues(0, Long.class));
    await().atMost(WAIT).until(() -> memory.deliveredIds().contains(refused.messageId()));
    await().atMost(WAIT).until(() -> fx.outboxCount() == 0);
    assertThat(enqueueOnce(keyed("order-2")).duplicate()).isTrue();
    assertThat(keys()).as("a replay writes no key").isEqualTo(2);

    // Retention: keys older than idempotencyKeyRetention go with the cleanup run; the request is
    // then new again.
    fx.dsl.execute(
        "update public.relayer_idempotency_keys set created_at = now() - interval '8 days'"
            + " where idempotency_key = 'order-1'");
    CleanupResult run =
        fx.track(
                RelayerMaintenance.create(
                    dispatcher,
                    DispatchFixture.fastMaintenance()
                        .idempotencyKeyRetention(Retention.of(Duration.ofDays(7)))
                        .build()))
            .cleanupOnce();

    assertThat(run.keysDeleted()).isOne();
    assertThat(run.drained()).isTrue();
    assertThat(keys()).isOne();
    NewMessage anew = keyed("order-1");
    assertThat(enqueueOnce(anew).duplicate()).isFalse();
    assertThat(enqueueOnce(keyed("order-2")).duplicate()).isTrue();
    await().atMost(WAIT).until(() -> memory.deliveredIds().contains(anew.messageId()));
    assertThat(memory.deliveredIds())
        .containsExactly(sent.messageId(), refused.messageId(), anew.messageId());
  }

  @Test
  void anInfiniteKeyRetentionKeepsEveryKey() {
    assertThat(enqueueOnce(keyed("order-3")).duplicate()).isFalse();
    fx.dsl.execute(
        "update public.relayer_idempotency_keys set created_at = now() - interval '10 years'");
    CleanupResult run =
        fx.track(
                RelayerMaintenance.create(
                    dispatcher,
                    DispatchFixture.fastMaintenance()
                        .idempotencyKeyRetention(Retention.infinite())
                        .build()))
            .cleanupOnce();

    assertThat(run.keysDeleted()).isZero();
    assertThat(keys()).isOne();
    assertThat(enqueueOnce(keyed("order-3")).duplicate()).isTrue();
  }
}
