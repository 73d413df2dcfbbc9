package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.relayer.schema.SchemaNames;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.testkit.TestDatabase;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Every check constraint of the schema rejects what it should, with SQLState 23514 and its own
 * constraint name, and accepts the boundary values next to it. Each case starts from a valid row
 * and breaks exactly one rule. Subclasses run the suite on their own database, with their own
 * schema and prefix and install method.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class CheckConstraintsContract {

  private static final String CHECK_VIOLATION = "23514";
  private static final String NIL = "'00000000-0000-0000-0000-000000000000'";

  private final AtomicLong deadIds = new AtomicLong();
  private TestDatabase db;

  /** Where the tables live in this suite. */
  abstract SchemaOptions options();

  /** Creates the tables in {@code db}. */
  abstract void install(TestDatabase db, SchemaOptions options);

  @BeforeAll
  void createTables() {
    db = TestDatabase.create();
    install(db, options());
  }

  @AfterAll
  void dropDatabase() {
    if (db != null) {
      db.close();
    }
  }

  /**
   * One broken rule per case, and the constraint that must report it. An unknown status breaks two
   * rules (the status list and the parked/pending shape); PostgreSQL reports the first failing
   * check in name order, so either name is accepted there.
   */
  static Stream<Arguments> outboxViolations() {
    return Stream.of(
        violation("nil message id", Map.of("message_id", NIL), "outbox_message_id_check"),
        violation("empty transport", Map.of("transport", "''"), "outbox_transport_check"),
        violation("empty destination", Map.of("destination", "''"), "outbox_destination_check"),
        violation("empty type", Map.of("message_type", "''"), "outbox_message_type_check"),
        violation("array headers", Map.of("headers", "'[]'"), "outbox_headers_check"),
        violation("string headers", Map.of("headers", "'\"x\"'"), "outbox_headers_check"),
        violation("json null headers", Map.of("headers", "'null'"), "outbox_headers_check"),
        violation("number headers", Map.of("headers", "'1'"), "outbox_headers_check"),
        violation(
            "negative lane", Map.of("ordering_key", "'k'", "lane", "-1"), "outbox_lane_check"),
        violation("lane without key", Map.of("lane", "0"), "outbox_ordering_check"),
        violation("key without lane", Map.of("ordering_key", "'k'"), "outbox_ordering_check"),
        violation("negative attempts", Map.of("attempts", "-1"), "outbox_attempts_check"),
        violation(
            "unknown status",
            Map.of("status", "'sent'"),
            "outbox_status_check",
            "outbox_parked_check"),
        violation(
            "upper-case status",
            Map.of("status", "'PENDING'"),
            "outbox_status_check",
            "outbox_parked_check"),
        violation(
            "empty status", Map.of("status", "''"), "outbox_status_check", "outbox_parked_check"),
        violation(
            "parked without parked_at",
            Map.of("status", "'parked'", "ordering_key", "'k'", "lane", "1"),
            "outbox_parked_check"),
        violation("pending with parked_at", Map.of("parked_at", "now()"), "outbox_parked_check"),
        violation(
            "parked without ordering key",
            Map.of("status", "'parked'", "parked_at", "now()"),
            "outbox_parked_check"),
        violation(
            "parked under a claim",
            Map.of(
                "status", "'parked'",
                "parked_at", "now()",
                "ordering_key", "'k'",
                "lane", "1",
                "claim_token", "gen_random_uuid()",
                "claim_expires_at", "now()"),
            "outbox_parked_check"),
        violation(
            "nil claim token",
            Map.of("claim_token", NIL, "claim_expires_at", "now()"),
            "outbox_claim_token_check"),
        violation(
            "token without expiry",
            Map.of("claim_token", "gen_random_uuid()"),
            "outbox_claim_check"),
        violation(
            "expiry without token", Map.of("claim_expires_at", "now()"), "outbox_claim_check"));
  }

  private static Arguments violation(
      String what, Map<String, String> values, String... constraints) {
    return Arguments.of(what, values, Set.of(constraints));
  }

  static Stream<Arguments> outboxAcceptedBoundaries() {
    return Stream.of(
        Arguments.of("defaults only", Map.of()),
        Arguments.of("lane 0 with a key", Map.of("ordering_key", "'k'", "lane", "0")),
        Arguments.of(
            "parked",
            Map.of("status", "'parked'", "parked_at", "now()", "ordering_key", "'k'", "lane", "7")),
        Arguments.of("attempts 0", Map.of("attempts", "0")),
        Arguments.of("string map headers", Map.of("headers", "'{\"traceparent\":\"00-1\"}'")),
        Arguments.of("empty body", Map.of("body", "''::bytea")),
        Arguments.of(
            "claim with expiry",
            Map.of("claim_token", "gen_random_uuid()", "claim_expires_at", "now()")),
        Arguments.of("scheduled", Map.of("deliver_at", "now() + interval '1 hour'")));
  }

  static Stream<Arguments> deadViolations() {
    return Stream.of(
        violation("nil message id", Map.of("message_id", NIL), "outbox_dead_message_id_check"),
        violation("array headers", Map.of("headers", "'[]'"), "outbox_dead_headers_check"),
        violation(
            "negative lane", Map.of("ordering_key", "'k'", "lane", "-1"), "outbox_dead_lane_check"),
        violation("lane without key", Map.of("lane", "2"), "outbox_dead_ordering_check"),
        violation("key without lane", Map.of("ordering_key", "'k'"), "outbox_dead_ordering_check"),
        violation("negative attempts", Map.of("attempts", "-1"), "outbox_dead_attempts_check"));
  }

  @ParameterizedTest(name = "outbox rejects {0}")
  @MethodSource("outboxViolations")
  void outboxRejects(String what, Map<String, String> values, Set<String> constraints)
      throws SQLException {
    assertRejected(SchemaNames.OUTBOX, outboxRow(values), constraints);
  }

  @ParameterizedTest(name = "outbox accepts {0}")
  @MethodSource("outboxAcceptedBoundaries")
  void outboxAccepts(String what, Map<String, String> values) throws SQLException {
    assertAccepted(SchemaNames.OUTBOX, outboxRow(values));
  }

  @ParameterizedTest(name = "dead table rejects {0}")
  @MethodSource("deadViolations")
  void deadTableRejects(String what, Map<String, String> values, Set<String> constraints)
      throws SQLException {
    assertRejected(SchemaNames.OUTBOX_DEAD, deadRow(values), constraints);
  }

  @Test
  void deadTableAcceptsAnOrderedRowAndAnUnorderedOne() throws SQLException {
    assertAccepted(SchemaNames.OUTBOX_DEAD, deadRow(Map.of()));
    assertAccepted(
        SchemaNames.OUTBOX_DEAD,
        deadRow(Map.of("ordering_key", "'k'", "lane", "0", "error_fingerprint", "'a1b2'")));
  }

  @Test
  void inboxRejectsTheNilMessageId() throws SQLException {
    assertRejected(
        SchemaNames.INBOX,
        Map.of("consumer", "'billing'", "message_id", NIL),
        Set.of("inbox_message_id_check"));
    assertAccepted(
        SchemaNames.INBOX, Map.of("consumer", "'billing'", "message_id", "gen_random_uuid()"));
  }

  private static Map<String, String> outboxRow(Map<String, String> overrides) {
    Map<String, String> row = new LinkedHashMap<>();
    row.put("message_id", "gen_random_uuid()");
    row.put("transport", "'memory'");
    row.put("destination", "'orders'");
    row.put("message_type", "'order.created'");
    row.put("body", "'\\x01'::bytea");
    row.putAll(overrides);
    return row;
  }

  private Map<String, String> deadRow(Map<String, String> overrides) {
    Map<String, String> row = new LinkedHashMap<>();
    row.put("id", Long.toString(deadIds.incrementAndGet()));
    row.putAll(outboxRow(Map.of()));
    row.put("created_at", "now() - interval '1 day'");
    row.put("failed_at", "now()");
    row.put("reason", "'max attempts'");
    row.putAll(overrides);
    return row;
  }

  private String insert(String table, Map<String, String> row) {
    return "INSERT INTO "
        + options().names().qualified(table)
        + " ("
        + String.join(", ", row.keySet())
        + ") VALUES ("
        + row.values().stream().collect(Collectors.joining(", "))
        + ")";
  }

  private void assertRejected(String table, Map<String, String> row, Set<String> constraintBases)
      throws SQLException {
    long before = count(table);

    PSQLException rejected =
        catchThrowableOfType(
            PSQLException.class, () -> Jdbc.execute(db.dataSource(), insert(table, row)));

    assertThat((Object) rejected).as("insert into %s of %s", table, row).isNotNull();
    assertThat(rejected.getSQLState()).isEqualTo(CHECK_VIOLATION);
    ServerErrorMessage error = rejected.getServerErrorMessage();
    assertThat(error).isNotNull();
    assertThat(error.getConstraint())
        .isIn(constraintBases.stream().map(options().names()::name).toList());
    assertThat(error.getTable()).isEqualTo(options().names().name(table));
    assertThat(error.getSchema()).isEqualTo(options().schema());
    assertThat(count(table)).isEqualTo(before);
  }

  private void assertAccepted(String table, Map<String, String> row) throws SQLException {
    long before = count(table);
    Jdbc.execute(db.dataSource(), insert(table, row));
    assertThat(count(table)).isEqualTo(before + 1);
  }

  private long count(String table) throws SQLException {
    return Jdbc.number(
        db.dataSource(), "SELECT count(*) FROM " + options().names().qualified(table));
  }
}
