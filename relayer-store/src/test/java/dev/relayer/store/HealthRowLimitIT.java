package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.schema.SchemaNames;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.health.HealthQuery;
import dev.relayer.store.health.HealthReads;
import dev.relayer.store.health.OutboxHealth;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The health read's row limit on a real server: up to it every pending figure is exact; at it the
 * read says so and its figures are those of the oldest due rows; rows not yet due never take the
 * place of due ones.
 */
class HealthRowLimitIT {

  StoreFixture fx;
  Instant now;

  @BeforeEach
  void setUp() {
    fx = new StoreFixture(SchemaOptions.of("health row limit", "hl_"));
    now = Instant.now().truncatedTo(ChronoUnit.MICROS);
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  /**
   * {@code count} unordered rows written one second apart, ending a minute before {@code now}; the
   * lowest id is the oldest. {@code deliverAt} is SQL for each row's {@code deliver_at}.
   */
  private void write(int count, String deliverAt) {
    fx.execute(
        "INSERT INTO %s (message_id, transport, destination, message_type, body, created_at,"
            + " deliver_at)"
            + " SELECT gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', '\\x00',"
            + " timestamptz '"
            + now
            + "' - interval '1 minute' - ("
            + count
            + " - g) * interval '1 second', "
            + deliverAt
            + " FROM generate_series(1, "
            + count
            + ") AS g",
        SchemaNames.OUTBOX);
  }

  private OutboxHealth read(long rowLimit) {
    return HealthReads.of(fx.store)
        .health(
            fx.dsl, new HealthQuery(now, Duration.ofSeconds(30), Duration.ofHours(1), rowLimit));
  }

  private Instant oldestCreatedAt() {
    return fx.dsl
        .select(DSL.min(DSL.field(DSL.name("created_at"), OffsetDateTime.class)))
        .from(DSL.table(fx.store.names().qualified(SchemaNames.OUTBOX)))
        .fetchOne(0, OffsetDateTime.class)
        .toInstant();
  }

  @Test
  void belowTheLimitEveryDueRowIsCountedAndTheLimitIsNotReached() {
    write(3_000, "NULL");

    OutboxHealth health = read(3_001);

    assertThat(health.backlog().eligible()).isEqualTo(3_000);
    assertThat(health.neverHandedOff()).isEqualTo(3_000);
    assertThat(health.rowLimitReached()).isFalse();
  }

  @Test
  void atTheLimitTheCountsAreOfTheOldestRowsAndTheAgesStayTheOldest() {
    write(3_000, "NULL");
    Duration oldest = Duration.between(oldestCreatedAt(), now);

    OutboxHealth limited = read(1_000);

    assertThat(limited.rowLimitReached()).isTrue();
    assertThat(limited.backlog().eligible()).isEqualTo(1_000);
    assertThat(limited.neverHandedOff()).isEqualTo(1_000);
    assertThat(limited.backlog().oldestEligibleAge()).contains(oldest);
    assertThat(limited.oldestPendingAge()).contains(oldest);
    assertThat(read(3_000).rowLimitReached()).as("exactly the limit").isTrue();
  }

  @Test
  void rowsNotYetDueAheadOfTheDueOnesDoNotTakeTheirPlace() {
    write(2_000, "now() + interval '1 hour'");
    write(10, "NULL");

    OutboxHealth health = read(100);

    assertThat(health.rowLimitReached()).isFalse();
    assertThat(health.backlog().eligible()).isEqualTo(10);
  }

  @Test
  void aRowLimitBelowOneIsRejected() {
    assertThatThrownBy(() -> new HealthQuery(now, Duration.ZERO, Duration.ofHours(1), 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("rowLimit must be at least 1, was 0");
  }
}
