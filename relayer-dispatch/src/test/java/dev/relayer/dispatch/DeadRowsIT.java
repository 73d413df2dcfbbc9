package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.NewMessage;
import dev.relayer.store.internal.ErrorFingerprint;
import dev.relayer.store.ops.AuditEntry;
import dev.relayer.store.ops.DeadFilter;
import dev.relayer.store.ops.DeadGroup;
import dev.relayer.store.ops.DeadPage;
import dev.relayer.store.ops.DeadRow;
import dev.relayer.store.ops.DeadRowSummary;
import dev.relayer.transport.memory.InMemoryTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jooq.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Dead rows through the operator: listing, groups and one row; replay back to the outbox and
 * delivery again by a running Relayer (unordered rows and ordered keys, in order, behind pending
 * and parked rows of their key); concurrent replays by several operators; purges that touch only
 * the rows their filter matches.
 */
class DeadRowsIT {

  static final Duration WAIT = Duration.ofSeconds(30);
  static final String OUTBOX = "\"public\".\"relayer_outbox\"";
  static final String DEAD = "\"public\".\"relayer_outbox_dead\"";

  DispatchFixture fx;
  InMemoryTransport memory;
  Set<UUID> poison = ConcurrentHashMap.newKeySet();
  RelayerOperator operator;

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture();
    memory = InMemoryTransport.named("memory");
    memory.rejectPermanently(m -> poison.contains(m.messageId()), "no route to exchange orders");
    operator = RelayerOperator.create(fx.store, fx.dsl);
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  /** A Relayer of every part over the fixture's pool; the sweeper waits an hour for new rows. */
  private Relayer startRelayer() {
    Relayer relayer =
        fx.track(
            Relayer.builder(fx.pool)
                .sharedTransport(memory)
                .dispatch(DispatchFixture.fastOptions().maxAttempts(1).build())
                .maintenance(
                    DispatchFixture.fastMaintenance().recoveryDelay(Duration.ofHours(1)).build())
                .lanes(DispatchFixture.fastLanes().build())
                .build());
    relayer.start();
    return relayer;
  }

  private List<Long> enqueue(List<NewMessage> messages) {
    return fx.dsl.transactionResult(tx -> fx.store.enqueue(tx.dsl(), messages));
  }

  private static NewMessage ordered(String key, int i) {
    return NewMessage.builder()
        .transport("memory")
        .destination("orders")
        .messageType("OrderChanged")
        .orderingKey(key)
        .header("seq", Integer.toString(i))
        .body((key + "#" + i).getBytes(StandardCharsets.UTF_8))
        .build();
  }

  /** How a test row dies: its reason, error and failure time. */
  record Death(String reason, String error, Instant failedAt) {
    static Death of(String error) {
      return new Death("max-attempts", error, Instant.now().truncatedTo(ChronoUnit.MICROS));
    }
  }

  /**
   * Moves outbox rows to the dead table as the dispatcher does when they run out of attempts (same
   * id, every column kept), with the given reason, error, fingerprint and failure time.
   */
  private void bury(List<Long> ids, Death death) {
    fx.dsl.execute(
        "with moved as (delete from "
            + OUTBOX
            + " where id = any(?) returning *)"
            + " insert into "
            + DEAD
            + " (id, message_id, transport, destination, message_type, headers, body, created_at,"
            + " ordering_key, lane, deliver_at, tenant_id, attempts, last_error, failed_at, reason,"
            + " error_fingerprint)"
            + " select id, message_id, transport, destination, message_type, headers, body,"
            + " created_at, ordering_key, lane, deliver_at, tenant_id, 1, cast(? as text),"
            + " cast(? as timestamptz), cast(? as text), cast(? as text) from moved",
        ids.toArray(Long[]::new),
        death.error(),
        OffsetDateTime.ofInstant(death.failedAt(), ZoneOffset.UTC),
        death.reason(),
        ErrorFingerprint.of(death.error()));
  }

  private List<UUID> deliveredOf(String key) {
    return memory.deliveries().stream()
        .filter(d -> key.equals(d.message().orderingKey()))
        .map(d -> d.message().messageId())
        .toList();
  }

  private Set<UUID> deliveredIds() {
    return new HashSet<>(memory.deliveredIds());
  }

  private List<Record> outboxRows() {
    return new ArrayList<>(fx.dsl.fetch("select * from " + OUTBOX + " order by id"));
  }

  private Set<UUID> deadMessageIds() {
    return new HashSet<>(
        fx.dsl.fetch("select message_id from " + DEAD).getValues("message_id", UUID.class));
  }

  private static List<UUID> ids(List<NewMessage> messages) {
    return messages.stream().map(NewMessage::messageId).toList();
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void replayedRowsAreDeliveredAgainWithTheirMessageIdsAndEachKeyInItsOriginalOrder() {
    List<NewMessage> first = List.of(ordered("customer-1", 1), ordered("customer-1", 2));
    List<NewMessage> second =
        List.of(ordered("customer-2", 1), ordered("customer-2", 2), ordered("customer-2", 3));
    List<NewMessage> all = new ArrayList<>(first);
    all.addAll(second);
    bury(enqueue(all), Death.of("broker rejected: schema mismatch"));
    // A row of customer-1 written after its dead rows, held until later: the replayed rows of
    // customer-1 must go out after it.
    NewMessage held =
        NewMessage.builder()
            .transport("memory")
            .destination("orders")
            .messageType("OrderChanged")
            .orderingKey("customer-1")
            .body("held".getBytes(StandardCharsets.UTF_8))
            .deliverAt(Instant.now().plusSeconds(8))
            .build();
    enqueue(List.of(held));
    Relayer relayer = startRelayer();
    List<NewMessage> unordered = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      NewMessage message = DispatchFixture.message("invoices-" + i);
      poison.add(message.messageId());
      unordered.add(message);
    }
    relayer.dsl().transaction(tx -> relayer.store().enqueue(tx.dsl(), unordered));
    await().atMost(WAIT).until(() -> operator.deadCount(DeadFilter.all()) == 10);
    assertThat(memory.deliveries()).isEmpty();
    poison.clear();
    assertThat(outboxRows())
        .as("the held row of customer-1 is still pending when the replay runs")
        .extracting(r -> r.get("message_id", UUID.class))
        .containsExactly(held.messageId());

    DeadReplayResult result = relayer.operator().replayDead(DeadFilter.all(), 3);

    assertThat(result.replayed()).isEqualTo(10);
    assertThat(result.ordered()).isEqualTo(5);
    assertThat(result.batches()).isEqualTo(4);
    assertThat(result.parkedKeys()).isEmpty();
    assertThat(operator.deadCount(DeadFilter.all())).isZero();
    await()
        .atMost(WAIT)
        .until(
            () ->
                deliveredIds().containsAll(ids(unordered))
                    && deliveredOf("customer-1").size() == 3
                    && deliveredOf("customer-2").size() == 3);
    List<UUID> customer1 = new ArrayList<>(List.of(held.messageId()));
    customer1.addAll(ids(first));
    assertThat(deliveredOf("customer-1")).containsExactlyElementsOf(customer1);
    assertThat(deliveredOf("customer-2")).containsExactlyElementsOf(ids(second));
    assertThat(memory.deliveries())
        .filteredOn(d -> d.message().messageId().equals(second.get(1).messageId()))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.message().headers()).containsEntry("seq", "2");
              assertThat(new String(d.message().body(), StandardCharsets.UTF_8))
                  .isEqualTo("customer-2#2");
            });
    await().atMost(WAIT).until(() -> fx.outboxCount() == 0);
  }

  @Test
  void replayedUnorderedRowsAreSweptWithoutWaitingOutTheRecoveryDelay() {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      messages.add(DispatchFixture.message("refunds-" + i));
    }
    bury(enqueue(messages), Death.of("connection reset"));
    startRelayer();

    // An operator of its own, as the command line has: nothing is handed over in this process.
    DeadReplayResult result = operator.replayDead(DeadFilter.all());

    assertThat(result.replayed()).isEqualTo(3);
    await().atMost(WAIT).until(() -> deliveredIds().containsAll(ids(messages)));
  }

  @Test
  void rowsReplayedToAParkedKeyWaitBehindItsHeadAndGoOutAfterIt() {
    NewMessage buried = ordered("customer-3", 1);
    NewMessage head = ordered("customer-3", 2);
    List<Long> written = enqueue(List.of(buried, head));
    bury(written.subList(0, 1), Death.of("broker rejected: too large"));
    poison.add(head.messageId());
    startRelayer();
    await().atMost(WAIT).until(() -> operator.parkedKey("customer-3").isPresent());

    DeadReplayResult result = operator.replayDead(DeadFilter.all());

    assertThat(result.replayed()).isEqualTo(1);
    assertThat(result.parkedKeys()).containsExactly("customer-3");
    assertThat(outboxRows())
        .extracting(r -> r.get("message_id", UUID.class), r -> r.get("status", String.class))
        .containsExactly(tuple(head.messageId(), "parked"), tuple(buried.messageId(), "pending"));
    assertThat(deliveredOf("customer-3")).isEmpty();

    poison.clear();
    assertThat(operator.retryHead("customer-3")).isTrue();

    await().atMost(WAIT).until(() -> deliveredOf("customer-3").size() == 2);
    assertThat(deliveredOf("customer-3")).containsExactly(head.messageId(), buried.messageId());
  }

  @Test
  void concurrentReplaysOfOneGroupMoveEachRowOnceAndKeepEachKeyInOrder() throws Exception {
    List<NewMessage> messages = new ArrayList<>();
    Map<String, List<UUID>> byKey = new LinkedHashMap<>();
    for (int i = 0; i < 40; i++) {
      for (int k = 0; k < 6; k++) {
        NewMessage message = ordered("account-" + k, i);
        messages.add(message);
        byKey.computeIfAbsent("account-" + k, x -> new ArrayList<>()).add(message.messageId());
      }
      messages.add(DispatchFixture.message("ledger-" + i));
      messages.add(DispatchFixture.message("ledger-" + i));
    }
    List<Long> written = enqueue(messages);
    bury(written, Death.of("timeout after 30000 ms"));
    NewMessage other = DispatchFixture.message("elsewhere");
    bury(enqueue(List.of(other)), Death.of("unknown exchange"));
    DeadFilter group =
        DeadFilter.builder().fingerprint(ErrorFingerprint.of("timeout after 30000 ms")).build();
    int operators = 4;
    ExecutorService threads = Executors.newFixedThreadPool(operators);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<DeadReplayResult>> results = new ArrayList<>();
    Map<String, Long> movedBy = new HashMap<>();
    try {
      for (int i = 0; i < operators; i++) {
        RelayerOperator own =
            RelayerOperator.create(fx.store, fx.dsl).withOperator("operator-" + i);
        results.add(
            threads.submit(
                () -> {
                  start.await();
                  return own.replayDead(group, 7);
                }));
      }
      start.countDown();
      long replayed = 0;
      long ordered = 0;
      for (int i = 0; i < operators; i++) {
        DeadReplayResult r = results.get(i).get(60, TimeUnit.SECONDS);
        replayed += r.replayed();
        ordered += r.ordered();
        if (r.replayed() > 0) {
          movedBy.put("operator-" + i, r.replayed());
        }
      }

      assertThat(replayed).isEqualTo(messages.size());
      assertThat(ordered).isEqualTo(240);
    } finally {
      threads.shutdownNow();
    }
    List<Record> outbox = outboxRows();
    List<UUID> inOutbox = outbox.stream().map(r -> r.get("message_id", UUID.class)).toList();
    assertThat(inOutbox).hasSize(messages.size()).doesNotHaveDuplicates();
    assertThat(inOutbox).containsExactlyInAnyOrderElementsOf(ids(messages));
    assertThat(deadMessageIds()).containsExactly(other.messageId());
    Map<String, List<UUID>> outboxByKey = new HashMap<>();
    for (Record row : outbox) {
      String key = row.get("ordering_key", String.class);
      assertThat(row.get("attempts", Integer.class)).isZero();
      assertThat(row.get("status", String.class)).isEqualTo("pending");
      if (key != null) {
        outboxByKey
            .computeIfAbsent(key, x -> new ArrayList<>())
            .add(row.get("message_id", UUID.class));
      }
    }
    assertThat(outboxByKey).isEqualTo(byKey);
    // One audit row per operator that moved rows, with what it moved.
    Map<String, Long> audited = new HashMap<>();
    for (AuditEntry entry : operator.auditEntries(null, 100)) {
      assertThat(entry.operation()).isEqualTo("dead-replay");
      assertThat(audited.put(entry.operator(), entry.rows())).isNull();
    }
    assertThat(audited).isEqualTo(movedBy);
  }

  @Test
  void aReplayInSeveralBatchesWritesOneAuditRowWithTheTotal() {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      messages.add(DispatchFixture.message("refunds-" + i));
    }
    bury(enqueue(messages), Death.of("connection reset"));
    Instant before = Instant.now().minusSeconds(1);

    DeadReplayResult result = operator.withOperator("alice").replayDead(DeadFilter.all(), 3);

    assertThat(result.batches()).isEqualTo(4);
    assertThat(operator.auditEntries(null, 10))
        .singleElement()
        .satisfies(
            entry -> {
              assertThat(entry.operator()).isEqualTo("alice");
              assertThat(entry.operation()).isEqualTo("dead-replay");
              assertThat(entry.rows()).isEqualTo(10);
              assertThat(entry.filter()).isEqualTo("{}");
              assertThat(entry.at()).isAfter(before);
            });
    assertThat(operator.operatorName()).isEqualTo(RelayerOperator.defaultOperatorName());
  }

  @Test
  void aReplayThatFailsInALaterBatchLeavesTheAuditCountOfTheBatchesThatCommitted() {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      messages.add(DispatchFixture.message("refunds-" + i));
    }
    List<Long> ids = enqueue(messages);
    bury(ids, Death.of("connection reset"));
    // The tenth row cannot go back: the fourth batch's transaction fails and rolls back.
    fx.dsl.execute(
        "create function refuse_last() returns trigger language plpgsql as $$ begin"
            + " if new.message_id = '"
            + messages.get(9).messageId()
            + "' then raise exception 'refused by a test trigger'; end if; return new; end $$");
    fx.dsl.execute(
        "create trigger refuse_last before insert on "
            + OUTBOX
            + " for each row execute function refuse_last()");

    assertThatThrownBy(() -> operator.withOperator("alice").replayDead(DeadFilter.all(), 3))
        .hasMessageContaining("refused by a test trigger");

    assertThat(deadMessageIds()).containsExactly(messages.get(9).messageId());
    assertThat(operator.auditEntries(null, 10))
        .singleElement()
        .satisfies(entry -> assertThat(entry.rows()).isEqualTo(9));
  }

  @Test
  void purgeAndParkedActionsAreAuditedAndActionsOnNothingAreNot() {
    List<Long> ids = enqueue(List.of(DispatchFixture.message("a"), DispatchFixture.message("b")));
    bury(ids, Death.of("connection reset"));
    RelayerOperator bob = operator.withOperator("bob");

    assertThat(bob.purgeDead(DeadFilter.builder().ids(List.of(ids.get(0))).build(), 1).purged())
        .isEqualTo(1);
    assertThat(bob.purgeDead(DeadFilter.builder().destination("nowhere").build()).purged())
        .isZero();
    assertThat(bob.retryHead("not-parked")).isFalse();
    assertThat(bob.moveHeadToDead("not-parked")).isFalse();
    assertThat(bob.releaseAll()).isZero();

    assertThat(operator.auditEntries(null, 10))
        .singleElement()
        .satisfies(
            entry -> {
              assertThat(entry.operator()).isEqualTo("bob");
              assertThat(entry.operation()).isEqualTo("dead-purge");
              assertThat(entry.rows()).isEqualTo(1);
              assertThat(entry.filter()).isEqualTo("{\"ids\": [" + ids.get(0) + "]}");
            });
    assertThatThrownBy(() -> operator.withOperator(" "))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("operator must not be blank");
    assertThatThrownBy(() -> operator.auditEntries(null, 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("limit must be between 1 and 10000");
  }

  @Test
  void purgesDeleteExactlyTheRowsTheirFilterMatches() {
    Instant base = Instant.parse("2026-03-01T00:00:00Z");
    record Fixture(UUID id, NewMessage message, Death death) {}
    List<Fixture> fixtures = new ArrayList<>();
    String[] errors = {"timeout after 10 ms", "no route to exchange orders", "message too large"};
    String[] reasons = {"max-attempts", "rejected", "operator"};
    for (int i = 0; i < 36; i++) {
      NewMessage message =
          NewMessage.builder()
              .transport(i % 2 == 0 ? "memory" : "kafka")
              .destination("orders-" + (i % 3))
              .messageType(i % 4 == 0 ? "OrderPlaced" : "OrderShipped")
              .tenantId(i % 5 == 0 ? null : "tenant-" + (i % 2))
              .orderingKey(i % 6 == 0 ? "customer-" + (i % 4) : null)
              .body(new byte[] {(byte) i})
              .build();
      Death death = new Death(reasons[(i / 3) % 3], errors[i % 3], base.plus(Duration.ofHours(i)));
      fixtures.add(new Fixture(message.messageId(), message, death));
    }
    Map<String, Predicate<Fixture>> cases = new LinkedHashMap<>();
    cases.put(
        "fingerprint=" + ErrorFingerprint.of(errors[1]), f -> f.death().error().equals(errors[1]));
    cases.put("transport=kafka", f -> f.message().transport().equals("kafka"));
    cases.put("destination=orders-2", f -> f.message().destination().equals("orders-2"));
    cases.put("messageType=OrderPlaced", f -> f.message().messageType().equals("OrderPlaced"));
    cases.put("tenantId=tenant-1", f -> "tenant-1".equals(f.message().tenantId()));
    cases.put("orderingKey=customer-2", f -> "customer-2".equals(f.message().orderingKey()));
    cases.put("reason=rejected", f -> f.death().reason().equals("rejected"));
    Instant from = base.plus(Duration.ofHours(5));
    Instant before = base.plus(Duration.ofHours(20));
    cases.put(
        "failedFrom..failedBefore",
        f -> !f.death().failedAt().isBefore(from) && f.death().failedAt().isBefore(before));
    cases.put(
        "transport=memory reason=max-attempts failedBefore",
        f ->
            f.message().transport().equals("memory")
                && f.death().reason().equals("max-attempts")
                && f.death().failedAt().isBefore(before));
    Map<String, DeadFilter> filters = new LinkedHashMap<>();
    List<String> names = new ArrayList<>(cases.keySet());
    filters.put(
        names.get(0), DeadFilter.builder().fingerprint(ErrorFingerprint.of(errors[1])).build());
    filters.put(names.get(1), DeadFilter.builder().transport("kafka").build());
    filters.put(names.get(2), DeadFilter.builder().destination("orders-2").build());
    filters.put(names.get(3), DeadFilter.builder().messageType("OrderPlaced").build());
    filters.put(names.get(4), DeadFilter.builder().tenantId("tenant-1").build());
    filters.put(names.get(5), DeadFilter.builder().orderingKey("customer-2").build());
    filters.put(names.get(6), DeadFilter.builder().reason("rejected").build());
    filters.put(names.get(7), DeadFilter.builder().failedFrom(from).failedBefore(before).build());
    filters.put(
        names.get(8),
        DeadFilter.builder()
            .transport("memory")
            .reason("max-attempts")
            .failedBefore(before)
            .build());

    for (String name : names) {
      fx.dsl.execute("delete from " + DEAD);
      for (Fixture f : fixtures) {
        bury(enqueue(List.of(f.message())), f.death());
      }
      Set<UUID> expectedGone = new HashSet<>();
      fixtures.stream().filter(cases.get(name)).forEach(f -> expectedGone.add(f.id()));
      assertThat(expectedGone).as(name).isNotEmpty().hasSizeLessThan(fixtures.size());
      assertThat(operator.deadCount(filters.get(name))).as(name).isEqualTo(expectedGone.size());

      DeadPurgeResult purged = operator.purgeDead(filters.get(name), 4);

      assertThat(purged.purged()).as(name).isEqualTo(expectedGone.size());
      Set<UUID> left = new HashSet<>();
      fixtures.forEach(f -> left.add(f.id()));
      left.removeAll(expectedGone);
      assertThat(deadMessageIds()).as(name).isEqualTo(left);
      assertThat(operator.purgeDead(filters.get(name)).purged()).as(name + " again").isZero();
    }
  }

  @Test
  void listingGroupsAndOneRowDescribeTheDeadRows() {
    Instant early = Instant.parse("2026-02-01T10:00:00Z");
    Instant late = Instant.parse("2026-02-03T10:00:00Z");
    NewMessage a =
        NewMessage.builder()
            .transport("memory")
            .destination("orders")
            .messageType("OrderPlaced")
            .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
            .tenantId("tenant-9")
            .body("{\"order\":1}".getBytes(StandardCharsets.UTF_8))
            .build();
    NewMessage b =
        NewMessage.builder()
            .transport("memory")
            .destination("payments")
            .messageType("PaymentTaken")
            .body(new byte[] {(byte) 0xff, 0x00, 0x10})
            .build();
    NewMessage c = DispatchFixture.ordered("customer-5");
    long idA = enqueue(List.of(a)).get(0);
    long idB = enqueue(List.of(b)).get(0);
    long idC = enqueue(List.of(c)).get(0);
    bury(List.of(idA), new Death("max-attempts", "timeout after 30 ms on id 17", early));
    bury(List.of(idB), new Death("max-attempts", "timeout after 45 ms on id 18", late));
    bury(List.of(idC), new Death("rejected", "unknown exchange", late));

    List<DeadGroup> groups = operator.deadGroups(DeadFilter.all());

    assertThat(groups).hasSize(2);
    DeadGroup timeouts = groups.get(0);
    assertThat(timeouts.fingerprint()).isEqualTo(ErrorFingerprint.of("timeout after 1 ms on id 1"));
    assertThat(timeouts.count()).isEqualTo(2);
    assertThat(timeouts.firstFailedAt()).isEqualTo(early);
    assertThat(timeouts.lastFailedAt()).isEqualTo(late);
    assertThat(timeouts.sampleError()).startsWith("timeout after");
    assertThat(timeouts.destinations()).containsExactly("orders", "payments");
    assertThat(groups.get(1).count()).isEqualTo(1);
    assertThat(operator.deadGroups(DeadFilter.builder().reason("rejected").build()))
        .singleElement()
        .satisfies(g -> assertThat(g.destinations()).containsExactly("orders"));

    List<DeadRowSummary> firstPage = operator.deadRows(DeadPage.first(DeadFilter.all(), 2));
    assertThat(firstPage).extracting(DeadRowSummary::id).containsExactly(idA, idB);
    assertThat(operator.deadRows(DeadPage.first(DeadFilter.all(), 2).after(idB)))
        .extracting(DeadRowSummary::id)
        .containsExactly(idC);
    DeadRowSummary summary = firstPage.get(0);
    assertThat(summary.messageId()).isEqualTo(a.messageId());
    assertThat(summary.tenantId()).isEqualTo("tenant-9");
    assertThat(summary.reason()).isEqualTo("max-attempts");
    assertThat(summary.lastError()).isEqualTo("timeout after 30 ms on id 17");
    assertThat(summary.failedAt()).isEqualTo(early);
    assertThat(summary.bodyBytes()).isEqualTo(11);
    assertThat(
            operator.deadRows(
                DeadPage.first(
                    DeadFilter.builder().failedFrom(late).messageType("PaymentTaken").build(), 10)))
        .extracting(DeadRowSummary::id)
        .containsExactly(idB);

    DeadRow shown = operator.deadRow(idA).orElseThrow();
    assertThat(shown.headers())
        .containsEntry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    assertThat(shown.bodyText()).contains("{\"order\":1}");
    assertThat(shown.destination()).isEqualTo("orders");
    assertThat(shown.createdAt()).isBefore(Instant.now().plusSeconds(1));
    DeadRow binary = operator.deadRow(idB).orElseThrow();
    assertThat(binary.bodyText()).isEmpty();
    assertThat(binary.bodyHex()).isEqualTo("ff0010");
    DeadRow keyed = operator.deadRow(idC).orElseThrow();
    assertThat(keyed.orderingKey()).isEqualTo("customer-5");
    assertThat(keyed.lane()).isNotNull();
    assertThat(operator.deadRow(idC + 1000)).isEmpty();
  }

  @Test
  void deadRowActionsRejectBadInputNamingTheField() {
    assertThatThrownBy(() -> operator.replayDead(DeadFilter.all(), 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("batchSize must be between 1 and 10000, was 0");
    assertThatThrownBy(() -> operator.purgeDead(DeadFilter.all(), 10_001))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("batchSize must be between 1 and 10000, was 10001");
    assertThatThrownBy(() -> operator.purgeDead(null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("filter must not be null");
    assertThatThrownBy(() -> operator.deadGroups(DeadFilter.all(), 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("limit must be between 1 and 10000, was 0");
    assertThatThrownBy(() -> operator.deadRow(0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("id must be positive, was 0");
    assertThat(operator.replayDead(DeadFilter.all()))
        .isEqualTo(new DeadReplayResult(0, 0, Set.of(), 0));
    assertThat(operator.purgeDead(DeadFilter.all())).isEqualTo(new DeadPurgeResult(0, 0));
  }
}
