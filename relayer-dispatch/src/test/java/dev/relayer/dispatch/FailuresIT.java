package dev.relayer.dispatch;

import static dev.relayer.dispatch.DispatchFixture.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.InvalidInputException;
import dev.relayer.dispatch.spi.DeadReason;
import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.NewMessage;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.transport.memory.InMemoryTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jooq.Record;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FailuresIT {

  DispatchFixture fx;
  InMemoryTransport memory;
  List<String> deadReasons = Collections.synchronizedList(new ArrayList<>());

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture();
    memory = InMemoryTransport.named("memory");
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private RelayerMaintenance start(DispatchOptions options) {
    RelayerDispatcher dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(memory)
                .options(options)
                .eventListener(
                    new RelayerEventListener() {
                      @Override
                      public void dead(DeliveryEvent event, DeadReason reason, String error) {
                        deadReasons.add(reason.tag() + ":" + event.destination());
                      }
                    })
                .build());
    dispatcher.start();
    RelayerMaintenance maintenance =
        fx.track(RelayerMaintenance.create(dispatcher, DispatchFixture.fastMaintenance().build()));
    maintenance.start();
    return maintenance;
  }

  private List<Record> deadRows() {
    return new ArrayList<>(
        fx.dsl.selectFrom(DSL.table(DSL.name("public", "relayer_outbox_dead"))).fetch());
  }

  @Test
  void aPoisonRowEndsDeadAfterMaxAttemptsWhileTheRestKeepFlowing() {
    NewMessage poison = message("orders");
    memory.reject(m -> m.messageId().equals(poison.messageId()), "broker rejected: bad payload #7");
    start(DispatchFixture.fastOptions().maxAttempts(3).build());
    fx.dsl.transaction(
        tx -> fx.store.enqueue(tx.dsl(), List.of(message("orders"), poison, message("orders"))));

    await().atMost(Duration.ofSeconds(30)).until(() -> deadRows().size() == 1);
    await().atMost(Duration.ofSeconds(30)).until(() -> fx.outboxCount() == 0);
    assertThat(memory.deliveries()).hasSize(2);
    Record dead = deadRows().get(0);
    assertThat(dead.get("message_id")).isEqualTo(poison.messageId());
    assertThat(dead.get("reason")).isEqualTo("max-attempts");
    assertThat(dead.get("attempts", Integer.class)).isEqualTo(3);
    assertThat(dead.get("last_error", String.class)).isEqualTo("broker rejected: bad payload #7");
    assertThat(dead.get("error_fingerprint", String.class)).hasSize(16);
    assertThat(
            memory.attempts().stream()
                .filter(a -> a.message().messageId().equals(poison.messageId())))
        .hasSize(3);
  }

  @Test
  void aFailingDestinationDoesNotHideRowsForOtherDestinations() {
    memory.reject(
        m -> new String(m.body(), StandardCharsets.UTF_8).contains("broken"),
        "destination unavailable");
    start(DispatchFixture.fastOptions().maxAttempts(1000).build());
    fx.dsl.transaction(
        tx -> {
          for (int i = 0; i < 5; i++) {
            fx.store.enqueue(tx.dsl(), List.of(message("broken"), message("healthy")));
          }
        });

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                memory.deliveries().stream().filter(d -> d.destination().equals("healthy")).count()
                    == 5);
    await().atMost(Duration.ofSeconds(30)).until(() -> fx.outboxCount() == 5);
    assertThat(memory.deliveries()).noneMatch(d -> d.destination().equals("broken"));
    memory.behaveNormally();
    await().atMost(Duration.ofSeconds(30)).until(() -> fx.outboxCount() == 0);
  }

  @Test
  void aRowNamingAnUnknownTransportFailsAloneAndEndsDead() {
    start(DispatchFixture.fastOptions().maxAttempts(2).build());
    NewMessage stray =
        NewMessage.builder()
            .transport("kafka")
            .destination("orders")
            .messageType("T")
            .body(new byte[] {1})
            .build();
    fx.dsl.transaction(
        tx -> fx.store.enqueue(tx.dsl(), List.of(message("orders"), stray, message("orders"))));

    await().atMost(Duration.ofSeconds(30)).until(() -> fx.outboxCount() == 0);
    assertThat(memory.deliveries()).hasSize(2);
    assertThat(deadRows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.get("reason")).isEqualTo("unknown-transport");
              assertThat(r.get("last_error", String.class)).isEqualTo("unknown transport 'kafka'");
            });
    assertThat(deadReasons).containsExactly("unknown-transport:orders");
  }

  @Test
  void aTransportThatHangsPastTheSendTimeoutFailsTheBatchAndTheRowIsRetried() {
    memory.hang(Duration.ofSeconds(3));
    start(
        DispatchFixture.fastOptions().sendTimeout(Duration.ofMillis(300)).maxAttempts(100).build());
    fx.dsl.transaction(tx -> fx.store.enqueue(tx.dsl(), message("slow")));

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                fx.dsl.fetchValue(
                        DSL.select(DSL.field(DSL.name("last_error"), String.class))
                            .from(DSL.table(DSL.name("public", "relayer_outbox"))))
                    != null);
    assertThat(
            fx.dsl.fetchValue(
                DSL.select(DSL.field(DSL.name("last_error"), String.class))
                    .from(DSL.table(DSL.name("public", "relayer_outbox")))))
        .contains("timed out after 300ms");
    memory.behaveNormally();
    await().atMost(Duration.ofSeconds(30)).until(() -> fx.outboxCount() == 0);
  }

  @Test
  void aRowWhoseClaimsAloneLapsedMaxAttemptsTimesIsMovedToTheDeadRowsWithoutAnotherSend() {
    // Three claims alone that lapsed without an outcome (PoisonMessageIT makes real senders die).
    long id = fx.dsl.transactionResult(tx -> fx.store.enqueue(tx.dsl(), message("killer")));
    for (int i = 0; i < 3; i++) {
      fx.claimAlone(
          new dev.relayer.store.pass.ClaimByIds(
              List.of(id),
              java.time.Instant.now().minusSeconds(60 - 10 * i),
              Duration.ofSeconds(1)));
    }
    start(DispatchFixture.fastOptions().maxAttempts(3).build());

    await().atMost(Duration.ofSeconds(30)).until(() -> deadRows().size() == 1);
    assertThat(memory.attempts()).as("never sent again").isEmpty();
    assertThat(deadRows().get(0).get("last_error", String.class))
        .startsWith("claimed 4 times without completing")
        .endsWith(ClaimedMessage.SENT_ALONE);
  }

  @Test
  void aRowWhoseClaimsWithOthersLapsedIsSentAloneWithoutSpendingAnAttemptOnThem() {
    // Three claims with others that lapsed without an outcome: a crash each time, which any row
    // in flight may have caused.
    long id = fx.dsl.transactionResult(tx -> fx.store.enqueue(tx.dsl(), message("suspect")));
    for (int i = 0; i < 3; i++) {
      fx.claimByIds(
          fx.dsl,
          new dev.relayer.store.pass.ClaimByIds(
              List.of(id),
              java.time.Instant.now().minusSeconds(60 - 10 * i),
              Duration.ofSeconds(1)));
    }
    start(DispatchFixture.fastOptions().maxAttempts(3).build());

    await().atMost(Duration.ofSeconds(30)).until(() -> fx.outboxCount() == 0);
    assertThat(deadRows()).isEmpty();
    assertThat(memory.attempts()).as("sent once, alone").hasSize(1);
    assertThat(memory.batchCount()).isEqualTo(1);
  }

  @Test
  void registeringTwoTransportsWithOneNameOrNoneIsRejected() {
    assertThatThrownBy(
            () ->
                RelayerDispatcher.builder(fx.store, fx.dsl)
                    .transport(InMemoryTransport.named("memory"))
                    .transport(InMemoryTransport.named("memory"))
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("transport 'memory' is registered twice");
    assertThatThrownBy(() -> RelayerDispatcher.builder(fx.store, fx.dsl).build())
        .hasMessageContaining("at least one transport");
    assertThatThrownBy(() -> InMemoryTransport.named(" "))
        .hasMessageContaining("transport name must not be blank");
  }
}
