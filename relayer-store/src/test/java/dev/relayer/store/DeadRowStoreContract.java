package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX_DEAD;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.jooq.generated.tables.records.RelayerOutboxRecord;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.internal.ErrorFingerprint;
import dev.relayer.store.internal.HeadersJson;
import dev.relayer.store.internal.StoreDsl;
import dev.relayer.store.ops.DeadDeleted;
import dev.relayer.store.ops.DeadFilter;
import dev.relayer.store.ops.DeadPage;
import dev.relayer.store.ops.DeadReplayed;
import dev.relayer.store.ops.DeadRowSummary;
import dev.relayer.store.ops.ReplayedRow;
import dev.relayer.store.ops.StoreOperations;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The operator's dead-row statements (list, groups, one row, replay, purge) against a real
 * PostgreSQL, once per schema configuration.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DeadRowStoreContract {

  StoreFixture fx;
  RelayerStore store;
  DSLContext dsl;
  DSLContext mapped;

  abstract SchemaOptions schema();

  @BeforeAll
  void createDatabase() {
    fx = new StoreFixture(schema());
    store = fx.store;
    dsl = fx.dsl;
    mapped = new StoreDsl(schema()).map(dsl);
  }

  @AfterAll
  void dropDatabase() {
    fx.close();
  }

  @BeforeEach
  void emptyTables() {
    mapped.deleteFrom(RELAYER_OUTBOX).execute();
    mapped.deleteFrom(RELAYER_OUTBOX_DEAD).execute();
  }

  private static final Instant FAILED = Instant.parse("2026-03-01T12:00:00Z");

  /** Writes a dead row with id {@code id}; {@code lane} as stored (may be another count's). */
  private UUID dead(long id, @Nullable String key, @Nullable Integer lane, String destination) {
    UUID messageId = UUID.randomUUID();
    mapped
        .insertInto(RELAYER_OUTBOX_DEAD)
        .set(RELAYER_OUTBOX_DEAD.ID, id)
        .set(RELAYER_OUTBOX_DEAD.MESSAGE_ID, messageId)
        .set(RELAYER_OUTBOX_DEAD.TRANSPORT, "memory")
        .set(RELAYER_OUTBOX_DEAD.DESTINATION, destination)
        .set(RELAYER_OUTBOX_DEAD.MESSAGE_TYPE, "OrderPlaced")
        .set(RELAYER_OUTBOX_DEAD.HEADERS, HeadersJson.write(Map.of("traceparent", "00-ab-cd-01")))
        .set(RELAYER_OUTBOX_DEAD.BODY, ("body-" + id).getBytes(StandardCharsets.UTF_8))
        .set(
            RELAYER_OUTBOX_DEAD.CREATED_AT,
            OffsetDateTime.ofInstant(FAILED.minusSeconds(60), ZoneOffset.UTC))
        .set(RELAYER_OUTBOX_DEAD.ORDERING_KEY, key)
        .set(RELAYER_OUTBOX_DEAD.LANE, lane)
        .set(RELAYER_OUTBOX_DEAD.TENANT_ID, "tenant-" + (id % 2))
        .set(RELAYER_OUTBOX_DEAD.ATTEMPTS, 5)
        .set(RELAYER_OUTBOX_DEAD.LAST_ERROR, "timeout after " + id + " ms")
        .set(RELAYER_OUTBOX_DEAD.FAILED_AT, OffsetDateTime.ofInstant(FAILED, ZoneOffset.UTC))
        .set(RELAYER_OUTBOX_DEAD.REASON, "max-attempts")
        .set(RELAYER_OUTBOX_DEAD.ERROR_FINGERPRINT, ErrorFingerprint.of("timeout after 1 ms"))
        .execute();
    return messageId;
  }

  private int laneOf(String key) {
    return Lanes.laneOf(key, store.options().laneCount());
  }

  @Test
  void replayMovesAPageBackUnderNewIdsInDeadIdOrderKeepingTheMessage() {
    UUID a = dead(3, "customer-1", laneOf("customer-1"), "orders");
    UUID b = dead(7, null, null, "orders");
    UUID c = dead(9, "customer-1", laneOf("customer-1"), "orders");
    long pending = dsl.transactionResult(tx -> store.enqueue(tx.dsl(), StoreFixture.unordered()));
    Instant replayedAt = Instant.now().truncatedTo(ChronoUnit.MICROS);

    DeadReplayed first = replayDead(dsl, DeadPage.first(DeadFilter.all(), 2), replayedAt);

    assertThat(first.rows()).extracting(ReplayedRow::deadId).containsExactly(3L, 7L);
    assertThat(first.rows()).extracting(ReplayedRow::messageId).containsExactly(a, b);
    assertThat(first.rows().get(0).outboxId()).isGreaterThan(pending);
    assertThat(first.rows().get(1).outboxId()).isGreaterThan(first.rows().get(0).outboxId());
    assertThat(first.rows().get(0).lane()).isEqualTo(laneOf("customer-1"));
    assertThat(first.next()).hasValue(7);
    assertThat(first.parkedKeys()).isEmpty();

    DeadReplayed second = replayDead(dsl, DeadPage.first(DeadFilter.all(), 2).after(7), replayedAt);

    assertThat(second.rows()).extracting(ReplayedRow::messageId).containsExactly(c);
    assertThat(second.next()).isEmpty();
    assertThat(second.rows().get(0).outboxId()).isGreaterThan(first.rows().get(1).outboxId());
    RelayerOutboxRecord row =
        mapped
            .selectFrom(RELAYER_OUTBOX)
            .where(RELAYER_OUTBOX.ID.eq(first.rows().get(0).outboxId()))
            .fetchOne();
    assertThat(row.getMessageId()).isEqualTo(a);
    assertThat(row.getTransport()).isEqualTo("memory");
    assertThat(row.getDestination()).isEqualTo("orders");
    assertThat(row.getMessageType()).isEqualTo("OrderPlaced");
    assertThat(HeadersJson.read(row.getHeaders())).containsEntry("traceparent", "00-ab-cd-01");
    assertThat(new String(row.getBody(), StandardCharsets.UTF_8)).isEqualTo("body-3");
    assertThat(row.getCreatedAt().toInstant()).isEqualTo(FAILED.minusSeconds(60));
    assertThat(row.getDeliverAt().toInstant()).isEqualTo(replayedAt);
    assertThat(row.getOrderingKey()).isEqualTo("customer-1");
    assertThat(row.getTenantId()).isEqualTo("tenant-1");
    assertThat(row.getAttempts()).isZero();
    assertThat(row.getLastError()).isNull();
    assertThat(row.getStatus()).isEqualTo("pending");
    assertThat(row.getClaimToken()).isNull();
    assertThat(StoreOperations.of(store).deadCount(dsl, DeadFilter.all())).isZero();
  }

  @Test
  void replayGivesARowWrittenUnderAnotherLaneCountItsKeysLaneNow() {
    int stale = (laneOf("customer-8") + 1) % store.options().laneCount() + 100;
    dead(4, "customer-8", stale, "orders");

    DeadReplayed replayed = replayDead(dsl, DeadPage.first(DeadFilter.all(), 10), Instant.now());

    assertThat(replayed.rows())
        .singleElement()
        .satisfies(r -> assertThat(r.lane()).isEqualTo(laneOf("customer-8")));
    assertThat(mapped.select(RELAYER_OUTBOX.LANE).from(RELAYER_OUTBOX).fetchOne().value1())
        .isEqualTo(laneOf("customer-8"));
  }

  @Test
  void replayAndPurgeSkipRowsAnotherTransactionHoldsAndNeverTouchRowsOutsideTheFilter()
      throws Exception {
    dead(1, null, null, "orders");
    dead(2, null, null, "orders");
    dead(3, null, null, "payments");
    dead(4, null, null, "orders");
    DeadFilter orders = DeadFilter.builder().destination("orders").build();
    try (Connection holder = fx.connect()) {
      holder.setAutoCommit(false);
      DSLContext held = new StoreDsl(schema()).map(fx.open(holder));
      held.selectFrom(RELAYER_OUTBOX_DEAD).where(RELAYER_OUTBOX_DEAD.ID.eq(2L)).forUpdate().fetch();

      DeadReplayed replayed = replayDead(dsl, DeadPage.first(orders, 10), Instant.now());
      DeadDeleted purged = deleteDead(dsl, DeadPage.first(orders, 10));

      assertThat(replayed.rows()).extracting(ReplayedRow::deadId).containsExactly(1L, 4L);
      assertThat(purged.deleted()).isZero();
      holder.rollback();
    }
    assertThat(
            mapped
                .select(RELAYER_OUTBOX_DEAD.ID)
                .from(RELAYER_OUTBOX_DEAD)
                .orderBy(RELAYER_OUTBOX_DEAD.ID)
                .fetch(RELAYER_OUTBOX_DEAD.ID))
        .containsExactly(2L, 3L);

    DeadDeleted purged = deleteDead(dsl, DeadPage.first(orders, 10));

    assertThat(purged.deleted()).isEqualTo(1);
    assertThat(purged.next()).isEmpty();
    assertThat(StoreOperations.of(store).deadRows(dsl, DeadPage.first(DeadFilter.all(), 10)))
        .extracting(DeadRowSummary::id)
        .containsExactly(3L);
  }

  @Test
  void replayNamesTheParkedKeysItsRowsWaitBehind() {
    long head =
        dsl.transactionResult(tx -> store.enqueue(tx.dsl(), StoreFixture.ordered("customer-4")));
    mapped
        .update(RELAYER_OUTBOX)
        .set(RELAYER_OUTBOX.STATUS, "parked")
        .set(RELAYER_OUTBOX.PARKED_AT, OffsetDateTime.now(ZoneOffset.UTC))
        .where(RELAYER_OUTBOX.ID.eq(head))
        .execute();
    dead(head + 100, "customer-4", laneOf("customer-4"), "orders");
    dead(head + 101, "customer-5", laneOf("customer-5"), "orders");

    DeadReplayed replayed = replayDead(dsl, DeadPage.first(DeadFilter.all(), 10), Instant.now());

    assertThat(replayed.rows()).hasSize(2);
    assertThat(replayed.parkedKeys()).containsExactly("customer-4");
  }

  @Test
  void listingGroupsAndOneRowReadTheDeadTable() {
    dead(5, null, null, "orders");
    dead(6, null, null, "payments");

    assertThat(StoreOperations.of(store).deadGroups(dsl, DeadFilter.all(), 10))
        .singleElement()
        .satisfies(
            g -> {
              assertThat(g.count()).isEqualTo(2);
              assertThat(g.destinations()).containsExactly("orders", "payments");
              assertThat(g.sampleError()).isEqualTo("timeout after 5 ms");
              assertThat(g.firstFailedAt()).isEqualTo(FAILED);
            });
    assertThat(
            StoreOperations.of(store)
                .deadRows(
                    dsl, DeadPage.first(DeadFilter.builder().tenantId("tenant-0").build(), 10)))
        .extracting(DeadRowSummary::id)
        .containsExactly(6L);
    assertThat(StoreOperations.of(store).deadRow(dsl, 5).orElseThrow().bodyText())
        .contains("body-5");
    assertThat(StoreOperations.of(store).highestDeadId(dsl)).hasValue(6);
    assertThat(
            StoreOperations.of(store)
                .deadCount(dsl, DeadFilter.builder().destination("orders").build()))
        .isEqualTo(1);
  }

  @Test
  void anIdsFilterReplaysAndPurgesOnlyTheNamedRowsThatMatchTheOtherFields() {
    UUID one = dead(7, null, null, "orders");
    dead(8, null, null, "orders");
    dead(9, null, null, "payments");
    dead(10, null, null, "orders");

    DeadReplayed replayed =
        replayDead(
            dsl,
            DeadPage.first(DeadFilter.builder().ids(java.util.List.of(7L, 9L)).build(), 10),
            Instant.now());
    DeadDeleted purged =
        deleteDead(
            dsl,
            DeadPage.first(
                DeadFilter.builder().destination("orders").ids(java.util.List.of(8L, 9L)).build(),
                10));

    assertThat(replayed.rows()).extracting(ReplayedRow::deadId).containsExactly(7L, 9L);
    assertThat(replayed.rows().get(0).messageId()).isEqualTo(one);
    assertThat(purged.deleted()).isEqualTo(1);
    assertThat(StoreOperations.of(store).deadRows(dsl, DeadPage.first(DeadFilter.all(), 10)))
        .extracting(DeadRowSummary::id)
        .containsExactly(10L);
    assertThat(
            StoreOperations.of(store)
                .deadCount(dsl, DeadFilter.builder().ids(java.util.List.of(10L, 11L)).build()))
        .isEqualTo(1);
  }

  private DeadReplayed replayDead(DSLContext on, DeadPage page, Instant replayedAt) {
    return StoreOperations.of(store).replayRun("test", page.filter()).replay(on, page, replayedAt);
  }

  private DeadDeleted deleteDead(DSLContext on, DeadPage page) {
    return StoreOperations.of(store).purgeRun("test", page.filter()).purge(on, page);
  }
}
