package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.SchemaNames;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.EnqueueOutcome.Duplicate;
import dev.relayer.store.EnqueueOutcome.Enqueued;
import dev.relayer.store.pass.CleanupPass;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Passes;
import dev.relayer.store.pass.PurgeBatch;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RelayerStore#enqueueOnce} on a real PostgreSQL, with an odd schema and prefix: a key
 * enqueues its message once, whether the second enqueue comes in the same call, a later one, or a
 * concurrent transaction on another connection.
 */
class IdempotentEnqueueIT {

  static StoreFixture fx;
  static RelayerStore store;
  static DSLContext dsl;

  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeAll
  static void setUp() {
    fx = new StoreFixture(SchemaOptions.of("my\"Schema X", "Ü-x_"));
    store = fx.store;
    dsl = fx.dsl;
  }

  @AfterAll
  static void tearDown() {
    fx.close();
  }

  @AfterEach
  void clean() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    fx.execute("delete from %s", SchemaNames.OUTBOX);
    fx.execute("delete from %s", SchemaNames.IDEMPOTENCY_KEYS);
  }

  private static NewMessage keyed(String key) {
    return StoreFixture.message().idempotencyKey(key).build();
  }

  private static List<UUID> outboxMessageIds() {
    return dsl.fetch(
            "select message_id from "
                + store.names().qualified(SchemaNames.OUTBOX)
                + " order by id")
        .getValues(0, UUID.class);
  }

  private static int keys() {
    return ((Number)
            dsl.fetchValue(
                "select count(*) from " + store.names().qualified(SchemaNames.IDEMPOTENCY_KEYS)))
        .intValue();
  }

  @Test
  void aSecondEnqueueOfAKeyIsADuplicateNamingTheFirstMessageAndWritesNothing() {
    NewMessage first = keyed("order-42");
    NewMessage retry = keyed("order-42");
    List<Long> handedOver = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicInteger counted =
        new java.util.concurrent.atomic.AtomicInteger();
    EnqueueListener handOff = (transaction, unordered, lanes) -> handedOver.addAll(unordered);
    StoreEventListener meter =
        new StoreEventListener() {
          @Override
          public void enqueued(int count, Duration took) {
            counted.addAndGet(count);
          }
        };
    EnqueueOutcome written;
    EnqueueOutcome again;
    StoreAttachment handingOff = store.attach(handOff);
    StoreAttachment metering = store.attach(meter);
    try {
      written = store.enqueueOnce(dsl, first);
      again = store.enqueueOnce(dsl, retry);
    } finally {
      handingOff.close();
      metering.close();
    }

    assertThat(written).isInstanceOf(Enqueued.class);
    assertThat(written.duplicate()).isFalse();
    assertThat(written.messageId()).isEqualTo(first.messageId());
    assertThat(((Enqueued) written).id()).isPositive();
    assertThat(again)
        .isInstanceOfSatisfying(
            Duplicate.class,
            d -> {
              assertThat(d.idempotencyKey()).isEqualTo("order-42");
              assertThat(d.messageId()).isEqualTo(first.messageId());
              assertThat(d.firstEnqueuedAt()).isBefore(Instant.now().plusSeconds(60));
            });
    assertThat(outboxMessageIds()).containsExactly(first.messageId());
    assertThat(keys()).isOne();
    assertThat(handedOver)
        .as("only the written row is handed over")
        .containsExactly(((Enqueued) written).id());
    assertThat(counted).as("only the written message is counted").hasValue(1);
  }

  @Test
  void theSameKeyTwiceInOneCallWritesTheFirstAndReportsTheSecondAsItsDuplicate() {
    NewMessage a = keyed("k1");
    NewMessage plain = StoreFixture.unordered();
    NewMessage c = keyed("k1");
    NewMessage d = keyed("k2");
    NewMessage ordered =
        StoreFixture.message().orderingKey("customer-7").idempotencyKey("k3").build();

    List<EnqueueOutcome> outcomes = store.enqueueOnce(dsl, List.of(a, plain, c, d, ordered));

    assertThat(outcomes)
        .extracting(EnqueueOutcome::duplicate)
        .containsExactly(false, false, true, false, false);
    assertThat(outcomes)
        .extracting(EnqueueOutcome::messageId)
        .containsExactly(
            a.messageId(), plain.messageId(), a.messageId(), d.messageId(), ordered.messageId());
    assertThat(outboxMessageIds())
        .containsExactly(a.messageId(), plain.messageId(), d.messageId(), ordered.messageId());
    assertThat(outcomes.stream().filter(o -> o instanceof Enqueued).map(o -> ((Enqueued) o).id()))
        .isSorted()
        .doesNotHaveDuplicates();
    assertThat(keys()).isEqualTo(3);
  }

  @Test
  void messagesWithoutAKeyAreAlwaysWrittenAndEnqueueRefusesAKeyedMessageWritingNothing() {
    NewMessage plain = StoreFixture.unordered();

    assertThat(store.enqueueOnce(dsl, List.of(plain, plain)))
        .extracting(EnqueueOutcome::duplicate)
        .containsExactly(false, false);
    assertThatThrownBy(() -> store.enqueue(dsl, List.of(StoreFixture.unordered(), keyed("k"))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("messages[1]: a message with an idempotencyKey must be enqueued")
        .hasMessageContaining("enqueueOnce");
    assertThatThrownBy(() -> store.enqueue(dsl, keyed("k")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("a message with an idempotencyKey must be enqueued with");

    assertThat(outboxMessageIds()).containsExactly(plain.messageId(), plain.messageId());
    assertThat(keys()).isZero();
  }

  @Test
  void badKeysAreRejectedNamingTheProblemBeforeAnythingIsWritten() {
    assertThatThrownBy(() -> keyed(""))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("idempotencyKey must be null (none) or not blank");
    assertThatThrownBy(() -> keyed(" \t"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("idempotencyKey must be null (none) or not blank");
    assertThatThrownBy(() -> keyed("x".repeat(256)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("idempotencyKey is 256 characters long; at most 255 are allowed");
    assertThatThrownBy(() -> keyed("a\0b"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("idempotencyKey must not contain a NUL character (at index 1)");
    assertThatThrownBy(() -> keyed("a\uD800"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("idempotencyKey must not contain an unpaired UTF-16 surrogate");
    assertThatThrownBy(() -> StoreFixture.unordered().withIdempotencyKey(" "))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("idempotencyKey must be null (none) or not blank");
    // A check of the application that refuses one message of a call: nothing of the call is
    // written, neither keys nor rows.
    EnqueueCheck noRefunds =
        m -> m.messageType().equals("Refund") ? List.of("no refunds") : List.of();
    StoreAttachment attached = store.attach(noRefunds);
    try {
      NewMessage refund =
          StoreFixture.message().messageType("Refund").idempotencyKey("refund-1").build();
      assertThatThrownBy(() -> store.enqueueOnce(dsl, List.of(keyed("order-1"), refund)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("messages[1]: no refunds");
    } finally {
      attached.close();
    }
    assertThat(outboxMessageIds()).isEmpty();
    assertThat(keys()).isZero();

    // The longest key, counted in characters (code points), not bytes or UTF-16 units.
    String longest = "\uD83D\uDCE6".repeat(255);
    assertThat(store.enqueueOnce(dsl, keyed(longest)).duplicate()).isFalse();
    assertThat(store.enqueueOnce(dsl, keyed(longest)).duplicate()).isTrue();
    assertThat(keys()).isOne();
  }

  @Test
  void anOutboxInsertThatFailsOnAnAutoCommitConnectionTakesItsKeyBackWithIt() {
    String outbox = store.names().qualified(SchemaNames.OUTBOX);
    dsl.execute(
        "alter table " + outbox + " add constraint test_refuses check (destination <> 'refused')");
    try {
      NewMessage refused =
          StoreFixture.message().destination("refused").idempotencyKey("order-9").build();
      assertThatThrownBy(() -> store.enqueueOnce(dsl, refused))
          .hasMessageContaining("test_refuses");
    } finally {
      dsl.execute("alter table " + outbox + " drop constraint test_refuses");
    }

    assertThat(keys()).as("the key went with the failed insert").isZero();
    NewMessage retry = keyed("order-9");
    assertThat(store.enqueueOnce(dsl, retry).duplicate()).isFalse();
    assertThat(outboxMessageIds()).containsExactly(retry.messageId());
  }

  @Test
  void aRolledBackEnqueueLeavesNoKeySoTheRetriedRequestIsWritten() {
    NewMessage first = keyed("order-5");
    assertThatThrownBy(
            () ->
                dsl.transaction(
                    tx -> {
                      assertThat(store.enqueueOnce(tx.dsl(), first).duplicate()).isFalse();
                      throw new IllegalStateException("the business write failed");
                    }))
        .hasMessageContaining("the business write failed");
    assertThat(keys()).isZero();

    NewMessage retry = keyed("order-5");
    assertThat(dsl.transactionResult(tx -> store.enqueueOnce(tx.dsl(), retry)).duplicate())
        .isFalse();
    assertThat(outboxMessageIds()).containsExactly(retry.messageId());
  }

  /** How a test ends the first of two transactions: commit or rollback. */
  @FunctionalInterface
  private interface TransactionEnd {
    void end(Connection connection) throws java.sql.SQLException;
  }

  /**
   * Two transactions on two connections enqueue one key: {@code first} in a transaction left open,
   * then {@code second} in a thread, whose insert waits on the key's unique index for the first;
   * once it waits, {@code endFirst} ends the first transaction. Returns the second's outcome, whose
   * transaction is then committed.
   */
  private EnqueueOutcome enqueueWhileTheFirstIsOpen(
      NewMessage first, NewMessage second, TransactionEnd endFirst) throws Exception {
    try (Connection one = fx.connect();
        Connection two = fx.connect()) {
      one.setAutoCommit(false);
      two.setAutoCommit(false);
      assertThat(store.enqueueOnce(fx.open(one), first).duplicate()).isFalse();

      int waiter = backendPid(two);
      Future<EnqueueOutcome> racing = threads.submit(() -> store.enqueueOnce(fx.open(two), second));
      awaitWaitingOnALock(waiter);
      assertThat(racing).isNotDone();

      endFirst.end(one);
      EnqueueOutcome outcome = racing.get(30, TimeUnit.SECONDS);
      two.commit();
      return outcome;
    }
  }

  @Test
  void aConcurrentEnqueueOfTheSameKeyWaitsForTheFirstTransactionAndIsADuplicateWhenItCommits()
      throws Exception {
    NewMessage first = keyed("order-77");

    EnqueueOutcome outcome =
        enqueueWhileTheFirstIsOpen(first, keyed("order-77"), Connection::commit);

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Duplicate.class, d -> assertThat(d.messageId()).isEqualTo(first.messageId()));
    assertThat(outboxMessageIds()).containsExactly(first.messageId());
    assertThat(keys()).isOne();
  }

  @Test
  void whenTheFirstTransactionRollsBackTheWaitingEnqueueOfItsKeyWins() throws Exception {
    NewMessage second = keyed("order-78");

    EnqueueOutcome outcome =
        enqueueWhileTheFirstIsOpen(keyed("order-78"), second, Connection::rollback);

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Enqueued.class, e -> assertThat(e.messageId()).isEqualTo(second.messageId()));
    assertThat(outboxMessageIds()).containsExactly(second.messageId());
    assertThat(keys()).isOne();
  }

  @Test
  void underRepeatableReadAKeyCommittedAfterTheSnapshotFailsWithASerializationFailure()
      throws Exception {
    NewMessage first = keyed("order-79");
    try (Connection reader = fx.connect()) {
      reader.setAutoCommit(false);
      DSLContext snapshot = fx.open(reader);
      snapshot.execute("set transaction isolation level repeatable read");
      snapshot.fetch("select 1");
      assertThat(store.enqueueOnce(dsl, first).duplicate()).isFalse();

      assertThatThrownBy(() -> store.enqueueOnce(snapshot, keyed("order-79")))
          .satisfies(
              e -> {
                Throwable cause = e;
                while (cause != null && !(cause instanceof java.sql.SQLException)) {
                  cause = cause.getCause();
                }
                assertThat(cause).isInstanceOf(java.sql.SQLException.class);
                assertThat(((java.sql.SQLException) cause).getSQLState()).isEqualTo("40001");
              });
      reader.rollback();
      // The retried transaction sees the first enqueue.
      snapshot.execute("set transaction isolation level repeatable read");
      EnqueueOutcome retried = store.enqueueOnce(snapshot, keyed("order-79"));
      reader.commit();
      assertThat(retried.duplicate()).isTrue();
      assertThat(retried.messageId()).isEqualTo(first.messageId());
    }
    assertThat(outboxMessageIds()).containsExactly(first.messageId());
  }

  @Test
  void manyThreadsEnqueuingOneKeyAtOnceWriteExactlyOneMessage() throws Exception {
    int writers = 8;
    CountDownLatch start = new CountDownLatch(1);
    List<NewMessage> messages = new ArrayList<>();
    List<Future<EnqueueOutcome>> outcomes = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      NewMessage message = keyed("order-1000");
      messages.add(message);
      // Each in its own transaction on its own connection, with two shared keys, given in
      // opposite orders by every other writer, and one of its own.
      List<NewMessage> call = new ArrayList<>(List.of(message, keyed("order-1001")));
      if (i % 2 == 1) {
        java.util.Collections.reverse(call);
      }
      call.add(keyed("own-" + UUID.randomUUID()));
      int index = call.indexOf(message);
      outcomes.add(
          threads.submit(
              () -> {
                start.await();
                return dsl.transactionResult(tx -> store.enqueueOnce(tx.dsl(), call)).get(index);
              }));
    }
    start.countDown();
    List<EnqueueOutcome> results = new ArrayList<>();
    for (Future<EnqueueOutcome> outcome : outcomes) {
      results.add(outcome.get(60, TimeUnit.SECONDS));
    }

    List<EnqueueOutcome> winners = results.stream().filter(o -> !o.duplicate()).toList();
    assertThat(winners).hasSize(1);
    UUID winner = winners.get(0).messageId();
    assertThat(messages).extracting(NewMessage::messageId).contains(winner);
    assertThat(results).extracting(EnqueueOutcome::messageId).containsOnly(winner);
    // One row for order-1000, one for order-1001, and one for each writer's own key.
    assertThat(outboxMessageIds()).contains(winner).hasSize(2 + writers);
    assertThat(keys()).isEqualTo(2 + writers);
  }

  /**
   * Two calls give two keys in opposite orders. A trigger makes the first call's insert of {@code
   * slow-a} sleep, so that the second starts while the first holds neither key: had each claimed
   * its keys in the order given, the second would take {@code slow-b} and wait for {@code slow-a}
   * while the first waited for {@code slow-b}, a deadlock; both claim in key order instead.
   */
  @Test
  void twoCallsGivingTheSameKeysInOppositeOrdersWaitForEachOtherInsteadOfDeadlocking()
      throws Exception {
    String keys = store.names().qualified(SchemaNames.IDEMPOTENCY_KEYS);
    dsl.execute(
        "create function public.slow_key() returns trigger language plpgsql as $$ begin"
            + " if new.idempotency_key = 'slow-a' then perform pg_sleep(0.5); end if;"
            + " return new; end $$");
    dsl.execute(
        "create trigger slow_key before insert on "
            + keys
            + " for each row execute function public.slow_key()");
    try (Connection one = fx.connect();
        Connection two = fx.connect()) {
      one.setAutoCommit(false);
      two.setAutoCommit(false);
      List<NewMessage> firstCall = List.of(keyed("slow-a"), keyed("slow-b"));
      Future<List<EnqueueOutcome>> first =
          threads.submit(() -> store.enqueueOnce(fx.open(one), firstCall));
      awaitSleeping(backendPid(one));
      int waiter = backendPid(two);
      Future<List<EnqueueOutcome>> second =
          threads.submit(
              () -> store.enqueueOnce(fx.open(two), List.of(keyed("slow-b"), keyed("slow-a"))));

      assertThat(first.get(30, TimeUnit.SECONDS))
          .extracting(EnqueueOutcome::duplicate)
          .containsExactly(false, false);
      awaitWaitingOnALock(waiter);
      one.commit();
      List<EnqueueOutcome> outcomes = second.get(30, TimeUnit.SECONDS);
      two.commit();

      assertThat(outcomes)
          .extracting(EnqueueOutcome::messageId)
          .containsExactly(firstCall.get(1).messageId(), firstCall.get(0).messageId());
      assertThat(outcomes).allMatch(EnqueueOutcome::duplicate);
    } finally {
      dsl.execute("drop trigger slow_key on " + keys);
      dsl.execute("drop function public.slow_key()");
    }
    assertThat(keys()).isEqualTo(2);
  }

  @Test
  void theRetentionBatchDeletesKeysOlderThanItsCutoffAndTheKeyThenEnqueuesAgain() {
    NewMessage old = keyed("order-old");
    NewMessage recent = keyed("order-recent");
    store.enqueueOnce(dsl, List.of(old, recent));
    fx.execute(
        "update %s set created_at = now() - interval '8 days'"
            + " where idempotency_key = 'order-old'",
        SchemaNames.IDEMPOTENCY_KEYS);
    fx.execute("delete from %s", SchemaNames.OUTBOX);
    Passes passes = Passes.of(store);

    int deleted =
        dsl.transactionResult(
            tx -> {
              CleanupPass pass =
                  passes.cleanup(
                      tx.dsl(), new LeaseRequest("cleanup", "test", Duration.ofMinutes(1)));
              return pass.purgeIdempotencyKeys(
                      PurgeBatch.first(Instant.now().minus(Duration.ofDays(7)), 100))
                  .deleted();
            });

    assertThat(deleted).isOne();
    assertThat(keys()).isOne();
    assertThat(store.enqueueOnce(dsl, keyed("order-recent")).messageId())
        .as("the recent key outlived its deleted row")
        .isEqualTo(recent.messageId());
    NewMessage again = keyed("order-old");
    assertThat(store.enqueueOnce(dsl, again))
        .as("the expired key no longer makes a duplicate")
        .isInstanceOf(Enqueued.class);
    assertThat(outboxMessageIds()).containsExactly(again.messageId());
  }

  private static int backendPid(Connection connection) throws Exception {
    try (var statement = connection.createStatement();
        var result = statement.executeQuery("select pg_backend_pid()")) {
      result.next();
      return result.getInt(1);
    }
  }

  /** Waits until the backend {@code pid} runs {@code pg_sleep}. */
  private static void awaitSleeping(int pid) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                "PgSleep"
                    .equals(
                        dsl.fetchValue(
                            "select wait_event from pg_stat_activity where pid = ?", pid)));
  }

  /** Waits until the backend {@code pid} waits on a lock (another transaction's row). */
  private static void awaitWaitingOnALock(int pid) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                "Lock"
                    .equals(
                        dsl.fetchValue(
                            "select wait_event_type from pg_stat_activity where pid = ?", pid)));
  }
}
