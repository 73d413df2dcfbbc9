package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX_DEAD;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.jooq.generated.tables.records.RelayerOutboxRecord;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.internal.StoreDsl;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.DeadLetter;
import dev.relayer.store.pass.FailedSend;
import dev.relayer.store.pass.TestPassSql;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.conf.StatementType;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Error texts come from brokers, which quote what they refused (a destination taken from user
 * input, say): Relayer stores them as bind values, exactly, whatever the session's settings.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ErrorTextIT {

  private static final Duration CLAIM = Duration.ofSeconds(30);

  private StoreFixture fx;
  private RelayerStore store;
  private Connection connection;
  private DSLContext legacy;
  private DSLContext mapped;

  @BeforeAll
  void createDatabase() throws Exception {
    fx = new StoreFixture(SchemaOptions.of("err\\'s", "e\\_"));
    store = fx.store;
    connection = fx.connect();
    try (Statement statement = connection.createStatement()) {
      // What a pool's init SQL, a role or a database setting can do to every session.
      statement.execute("SET standard_conforming_strings = off");
      statement.execute("SET escape_string_warning = off");
    }
    legacy = DSL.using(connection, SQLDialect.POSTGRES);
    mapped = new StoreDsl(fx.schema).map(fx.dsl);
  }

  @AfterAll
  void dropDatabase() throws Exception {
    connection.close();
    fx.close();
  }

  private Instant now() {
    return Instant.now().truncatedTo(ChronoUnit.MICROS);
  }

  private RelayerOutboxRecord row(long id) {
    return mapped.selectFrom(RELAYER_OUTBOX).where(RELAYER_OUTBOX.ID.eq(id)).fetchOne();
  }

  @Test
  void anErrorTextQuotingSqlIsStoredExactlyWithStandardConformingStringsOff() {
    Instant now = now();
    long victim = store.enqueue(legacy, StoreFixture.message().destination("victim").build());
    long attacker = store.enqueue(legacy, StoreFixture.message().destination("attacker").build());
    Claim claim =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(legacy, new ClaimByIds(List.of(victim, attacker), now, CLAIM));
    String refused =
        "NOT_FOUND - no exchange 'x\\', \"destination\" = $$attacker$$"
            + " where \"destination\" = $$victim$$ --'";

    int recorded =
        TestPassSql.of(store)
            .outbox()
            .recordFailures(
                legacy,
                claim.token(),
                List.of(new FailedSend(attacker, refused, now.plusSeconds(5))));

    assertThat(recorded).isEqualTo(1);
    assertThat(row(attacker).getLastError()).isEqualTo(refused);
    assertThat(row(victim).getDestination()).isEqualTo("victim");
    assertThat(row(victim).getLastError())
        .as("as the claim left it")
        .isEqualTo(ClaimedMessage.IN_FLIGHT);
  }

  @Test
  void backslashesInAnErrorTextAreKeptExactly() {
    Instant now = now();
    long id = store.enqueue(legacy, StoreFixture.unordered());
    Claim claim =
        TestPassSql.of(store).outbox().claimByIds(legacy, new ClaimByIds(List.of(id), now, CLAIM));
    String error = "C:\\temp\\new \\\\ \\x41 \\' E'\\n' \\";

    TestPassSql.of(store)
        .outbox()
        .recordFailures(legacy, claim.token(), List.of(new FailedSend(id, error, now)));

    assertThat(row(id).getLastError()).isEqualTo(error);
  }

  @Test
  void aNulInAnErrorTextIsRecordedAsAReplacementCharacter() {
    Instant now = now();
    long first = store.enqueue(legacy, StoreFixture.unordered());
    long second = store.enqueue(legacy, StoreFixture.unordered());
    Claim claim =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(legacy, new ClaimByIds(List.of(first, second), now, CLAIM));

    int recorded =
        TestPassSql.of(store)
            .outbox()
            .recordFailures(
                legacy,
                claim.token(),
                List.of(
                    new FailedSend(first, "broker said \0 here", now.plusSeconds(3)),
                    new FailedSend(second, "lone \uD800 surrogate", now.plusSeconds(4))));

    assertThat(recorded).isEqualTo(2);
    assertThat(row(first).getLastError()).isEqualTo("broker said \uFFFD here");
    assertThat(row(first).getClaimExpiresAt().toInstant()).isEqualTo(now.plusSeconds(3));
    assertThat(row(second).getLastError()).isEqualTo("lone \uFFFD surrogate");
    assertThat(row(second).getClaimExpiresAt().toInstant()).isEqualTo(now.plusSeconds(4));
  }

  @Test
  void aCallersStaticStatementSettingStillBindsEveryValue() {
    Instant now = now();
    DSLContext staticStatements =
        DSL.using(
            connection,
            SQLDialect.POSTGRES,
            new Settings().withStatementType(StatementType.STATIC_STATEMENT));
    long victim = store.enqueue(legacy, StoreFixture.message().destination("victim2").build());
    long id = store.enqueue(staticStatements, StoreFixture.unordered());
    Claim claim =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(staticStatements, new ClaimByIds(List.of(id), now, CLAIM));
    String refused = "x\\', \"destination\" = $$attacker$$ where \"destination\" = $$victim2$$ --";

    assertThat(
            TestPassSql.of(store).lanes().park(staticStatements, claim.token(), id, refused, now))
        .isFalse();
    TestPassSql.of(store)
        .outbox()
        .recordFailures(staticStatements, claim.token(), List.of(new FailedSend(id, refused, now)));
    int dead =
        TestPassSql.of(store)
            .outbox()
            .moveToDead(
                staticStatements,
                claim.token(),
                new DeadLetter(List.of(id), refused, refused, now));

    assertThat(dead).isEqualTo(1);
    assertThat(row(victim).getDestination()).isEqualTo("victim2");
    assertThat(
            mapped
                .select(RELAYER_OUTBOX_DEAD.REASON, RELAYER_OUTBOX_DEAD.LAST_ERROR)
                .from(RELAYER_OUTBOX_DEAD)
                .where(RELAYER_OUTBOX_DEAD.ID.eq(id))
                .fetchOne()
                .intoList())
        .containsExactly(refused, refused);
  }
}
