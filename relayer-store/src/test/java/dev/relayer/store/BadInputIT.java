package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_INBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.internal.StoreDsl;
import dev.relayer.store.ops.StoreOperations;
import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.store.pass.ClaimPage;
import dev.relayer.store.pass.DeadLetter;
import dev.relayer.store.pass.FailedSend;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.TestPassSql;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Bad input to the store and its options on a real PostgreSQL: rejected with an {@link
 * InvalidInputException} naming the field before any SQL, and nothing written anywhere.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputIT {

  /** An install in the schema the generated classes carry, where unmapped statements would go. */
  private static final SchemaOptions GENERATED = SchemaOptions.of("relayer", "relayer_");

  private TestDatabase database;
  private DSLContext dsl;

  @BeforeAll
  void createDatabase() {
    database = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(database.dataSource(), GENERATED);
    dsl = DSL.using(database.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterAll
  void dropDatabase() {
    database.close();
  }

  private int rowsOf(SchemaOptions install) {
    return new StoreDsl(install).map(dsl).fetchCount(RELAYER_OUTBOX);
  }

  @Test
  void aBlankSchemaIsRejectedBeforeItCanWriteIntoAnotherInstall() {
    for (String blank : new String[] {" ", "\t", "  \n"}) {
      assertThatThrownBy(
              () -> {
                SchemaOptions options = SchemaOptions.of(blank, "relayer_");
                RelayerSchemaInstaller.applyScript(database.dataSource(), options);
                RelayerStore.create(StoreOptions.of(options))
                    .enqueue(dsl, StoreFixture.unordered());
              })
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("schema")
          .hasMessageContaining("blank");
    }
    assertThat(rowsOf(GENERATED)).isZero();
    assertThat(
            dsl.fetchCount(
                DSL.table(DSL.name("pg_namespace")), DSL.field(DSL.name("nspname")).like(" %")))
        .isZero();
  }

  @Test
  void anIdentifierWithAnUnpairedSurrogateIsRejectedBeforeItCanWriteIntoAnotherInstall() {
    // The driver encodes an unpaired surrogate as '?': "q\uD800" would name the install "q?".
    SchemaOptions question = SchemaOptions.of("q?", "p?_");
    RelayerSchemaInstaller.applyScript(database.dataSource(), question);

    assertThatThrownBy(() -> storeOf(SchemaOptions.of("q\uD800", "p?_")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("schema")
        .hasMessageContaining("unpaired UTF-16 surrogate (U+D800 at index 1)");
    assertThatThrownBy(() -> storeOf(SchemaOptions.of("q?", "p\uDFFF_")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("table prefix")
        .hasMessageContaining("U+DFFF at index 1");
    assertThat(rowsOf(question)).isZero();
  }

  private static RelayerStore storeOf(SchemaOptions options) {
    return RelayerStore.create(StoreOptions.of(options));
  }

  @Test
  void messageTextWithAnUnpairedSurrogateIsRejectedNamingTheFieldAndIndex() {
    RelayerStore store = storeOf(GENERATED);
    Map<String, Consumer<NewMessage.Builder>> fields = new LinkedHashMap<>();
    fields.put("transport", b -> b.transport("mem\uD800ory"));
    fields.put("destination", b -> b.destination("a\uD800b"));
    fields.put("messageType", b -> b.messageType("T\uDC00"));
    fields.put("header name", b -> b.header("x\uD800", "v"));
    fields.put("value", b -> b.header("x", "v\uDBFF"));
    fields.put("orderingKey", b -> b.orderingKey("k\uD800"));
    fields.put("tenantId", b -> b.tenantId("t\uDC00"));
    fields.forEach(
        (field, bad) ->
            assertThatThrownBy(
                    () -> {
                      NewMessage.Builder builder = StoreFixture.message();
                      bad.accept(builder);
                      store.enqueue(dsl, builder.build());
                    })
                .as(field)
                .isInstanceOf(InvalidInputException.class)
                .hasMessageContaining(field)
                .hasMessageContaining("unpaired UTF-16 surrogate"));
    assertThat(rowsOf(GENERATED)).isZero();
  }

  @Test
  void inboxConsumersDifferingOnlyInAnUnpairedSurrogateAreRejected() {
    RelayerStore store = storeOf(GENERATED);
    UUID id = UUID.randomUUID();

    assertThatThrownBy(() -> store.tryRecordInbox(dsl, "billing\uD800", id))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("consumer must not contain an unpaired UTF-16 surrogate");
    assertThatThrownBy(() -> store.tryRecordInbox(dsl, "billing\uDBFF", id))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("U+DBFF at index 7");
    assertThat(new StoreDsl(GENERATED).map(dsl).fetchCount(RELAYER_INBOX)).isZero();
  }

  @Test
  void aNulInAnyTextFieldIsRejectedBeforeAnySqlAndTheTransactionGoesOn() {
    RelayerStore store = storeOf(GENERATED);
    Map<String, Consumer<NewMessage.Builder>> fields = new LinkedHashMap<>();
    fields.put("transport", b -> b.transport("mem\0ory"));
    fields.put("destination", b -> b.destination("orders\0"));
    fields.put("messageType", b -> b.messageType("\0Type"));
    fields.put("header name", b -> b.header("x\0", "v"));
    fields.put("value", b -> b.header("x", "v\0"));
    fields.put("orderingKey", b -> b.orderingKey("k\0"));
    fields.put("tenantId", b -> b.tenantId("t\0"));
    Map<String, Consumer<DSLContext>> calls = new LinkedHashMap<>();
    fields.forEach(
        (field, bad) ->
            calls.put(
                field,
                tx -> {
                  NewMessage.Builder builder = StoreFixture.message();
                  bad.accept(builder);
                  store.enqueue(tx, builder.build());
                }));
    calls.put("consumer", tx -> store.tryRecordInbox(tx, "billing\0", UUID.randomUUID()));
    calls.put(
        "lease name",
        tx ->
            TestPassSql.of(store)
                .leases()
                .tryAcquireLease(tx, new LeaseRequest("s\0", "me", Duration.ofSeconds(5))));
    calls.put(
        "lease owner",
        tx ->
            TestPassSql.of(store)
                .leases()
                .tryAcquireLease(tx, new LeaseRequest("s", "m\0e", Duration.ofSeconds(5))));
    calls.put("lease name", tx -> TestPassSql.of(store).leases().releaseLease(tx, "s\0", "me"));
    calls.put("orderingKey", tx -> StoreOperations.of(store).retryHead(tx, "test", "k\0"));
    calls.put("transport", tx -> HealthReads.of(store).backlog(tx, Instant.now(), "m\0"));
    calls.put(
        "reason",
        tx ->
            TestPassSql.of(store)
                .outbox()
                .moveToDead(
                    tx, UUID.randomUUID(), new DeadLetter(List.of(1L), "r\0", "e", Instant.now())));

    dsl.transaction(
        configuration -> {
          DSLContext tx = configuration.dsl();
          store.enqueue(tx, StoreFixture.message().destination("before").build());
          calls.forEach(
              (field, call) ->
                  assertThatThrownBy(() -> call.accept(tx))
                      .as(field)
                      .isInstanceOf(InvalidInputException.class)
                      .hasMessageContaining(field)
                      .hasMessageContaining("NUL character (at index"));
          store.enqueue(tx, StoreFixture.message().destination("after").build());
        });

    assertThat(
            new StoreDsl(GENERATED)
                .map(dsl)
                .select(RELAYER_OUTBOX.DESTINATION)
                .from(RELAYER_OUTBOX)
                .orderBy(RELAYER_OUTBOX.ID)
                .fetch(RELAYER_OUTBOX.DESTINATION))
        .containsExactly("before", "after");
    new StoreDsl(GENERATED).map(dsl).deleteFrom(RELAYER_OUTBOX).execute();
  }

  @Test
  void anEnqueueOnAnAutocommitConnectionIsAllOrNothingWhateverTheCount() throws Exception {
    SchemaOptions install = SchemaOptions.of("autocommit", "a_");
    RelayerSchemaInstaller.applyScript(database.dataSource(), install);
    DSLContext mapped = new StoreDsl(install).map(dsl);
    // The database refuses one row, as it would a row its own rules reject.
    mapped.execute(
        "ALTER TABLE "
            + install.names().qualified("outbox")
            + " ADD CONSTRAINT no_poison CHECK (destination <> 'poison')");
    RelayerStore store = storeOf(install);
    try (Connection connection = database.connect()) {
      assertThat(connection.getAutoCommit()).isTrue();
      DSLContext autocommit = DSL.using(connection, SQLDialect.POSTGRES);
      for (int count : new int[] {150, 250}) {
        for (boolean ordered : new boolean[] {false, true}) {
          List<NewMessage> messages = new ArrayList<>();
          for (int i = 0; i < count; i++) {
            NewMessage.Builder message =
                StoreFixture.message().destination(i == 106 ? "poison" : "orders");
            messages.add(ordered ? message.orderingKey("k" + i % 7).build() : message.build());
          }

          assertThatThrownBy(() -> store.enqueue(autocommit, messages))
              .as(count + " messages, ordered " + ordered)
              .hasMessageContaining("no_poison");

          assertThat(mapped.fetchCount(RELAYER_OUTBOX)).isZero();
          assertThat(connection.getAutoCommit()).isTrue();
        }
      }
      List<NewMessage> good = new ArrayList<>();
      for (int i = 0; i < 250; i++) {
        good.add(StoreFixture.message().orderingKey("k" + i % 7).build());
      }
      assertThat(store.enqueue(autocommit, good)).hasSize(250);
      assertThat(connection.getAutoCommit()).isTrue();
    }
    assertThat(mapped.fetchCount(RELAYER_OUTBOX)).as("committed").isEqualTo(250);
  }

  @Test
  void aSchemaStartingWithPgIsRejectedBeforeAnySqlWhileOtherCasesInstallAndWork() {
    for (String reserved : new String[] {"pg_x", "pg_catalog", "pg_temp"}) {
      assertThatThrownBy(
              () ->
                  RelayerSchemaInstaller.applyScript(
                      database.dataSource(), SchemaOptions.of(reserved, "relayer_")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("must not start with \"pg_\"");
    }
    SchemaOptions upper = SchemaOptions.of("PG_x", "pg_");
    RelayerSchemaInstaller.applyScript(database.dataSource(), upper);
    RelayerStore store = storeOf(upper);
    store.verifySchema(dsl);
    store.enqueue(dsl, StoreFixture.unordered());
    assertThat(rowsOf(upper)).isEqualTo(1);
  }

  @Test
  void instantsOutsideTheWritableRangeAreRejectedBeforeAnySqlAndItsEndsRoundTrip() {
    SchemaOptions install = SchemaOptions.of("instants", "i_");
    RelayerSchemaInstaller.applyScript(database.dataSource(), install);
    RelayerStore store = storeOf(install);
    for (Instant outside :
        new Instant[] {
          Instant.MAX,
          Instant.MIN,
          Instant.parse("+300000-01-01T00:00:00Z"),
          Instant.parse("-5000-01-01T00:00:00Z"),
          Instant.parse("0000-12-31T23:59:59.999999Z"),
          Instant.parse("9999-12-31T23:59:59.9999991Z")
        }) {
      assertThatThrownBy(
              () -> store.enqueue(dsl, StoreFixture.message().deliverAt(outside).build()))
          .as(outside.toString())
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("deliverAt must be between 0001-01-01T00:00:00Z and");
    }
    Instant first = Instant.parse("0001-01-01T00:00:00Z");
    Instant last = Instant.parse("9999-12-31T23:59:59.999999Z");
    store.enqueue(
        dsl,
        List.of(
            StoreFixture.message().deliverAt(first).build(),
            StoreFixture.message().deliverAt(last).build()));
    assertThat(
            new StoreDsl(install)
                .map(dsl)
                .select(RELAYER_OUTBOX.DELIVER_AT)
                .from(RELAYER_OUTBOX)
                .orderBy(RELAYER_OUTBOX.ID)
                .fetch(r -> r.value1().toInstant()))
        .containsExactly(first, last);
  }

  @Test
  void requestsOutOfRangeAreInvalidInputNamingTheField() {
    RelayerStore store = storeOf(GENERATED);
    Instant now = Instant.now();
    Duration tooLong = Duration.ofDays(200_000_000);

    assertThatThrownBy(
            () ->
                TestPassSql.of(store)
                    .outbox()
                    .claimPage(dsl, new ClaimPage(0, 10, now, 10, now, tooLong)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("claimDuration must be at most 36500 days");
    assertThatThrownBy(
            () ->
                TestPassSql.of(store)
                    .outbox()
                    .claimByIds(dsl, new ClaimByIds(List.of(1L), now, tooLong)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("claimDuration");
    assertThatThrownBy(
            () ->
                TestPassSql.of(store)
                    .outbox()
                    .claimPage(dsl, new ClaimPage(0, 10, now, 0, now, Duration.ofSeconds(5))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("limit must be at least 1, was 0");
    assertThatThrownBy(() -> store.tryRecordInbox(dsl, "billing", null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("messageId must not be null");
    assertThatThrownBy(
            () ->
                TestPassSql.of(store)
                    .outbox()
                    .recordFailures(
                        dsl, UUID.randomUUID(), List.of(new FailedSend(1, "e", Instant.MAX))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("retryAt must be between");
    assertThat(rowsOf(GENERATED)).isZero();
  }
}
