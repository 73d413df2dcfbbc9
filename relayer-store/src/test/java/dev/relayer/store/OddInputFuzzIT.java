package dev.relayer.store;

import static dev.relayer.jooq.generated.Tables.RELAYER_INBOX;
import static dev.relayer.jooq.generated.Tables.RELAYER_OUTBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.relayer.api.InvalidInputException;
import dev.relayer.jooq.generated.tables.records.RelayerOutboxRecord;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.internal.ErrorText;
import dev.relayer.store.internal.HeadersJson;
import dev.relayer.store.internal.StoreDsl;
import dev.relayer.store.pass.Claim;
import dev.relayer.store.pass.ClaimByIds;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.store.pass.FailedSend;
import dev.relayer.store.pass.TestPassSql;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Odd identifiers and text — quotes, backslashes, {@code $$}, <code>${</code>, control characters,
 * NUL, unpaired surrogates, multi-byte UTF-8 near the 63-byte limit, blanks, {@code pg_} — each
 * either rejected with an {@link InvalidInputException} before any SQL, exactly when an independent
 * rule says so, or installed by the script (and, for a few, by Liquibase) and used exactly by the
 * store on a real PostgreSQL.
 *
 * <p>The normal run checks about ten thousand cases (5000 name pairs, 2000 messages, their error
 * texts, 300 inbox consumers; 12 script and 2 Liquibase installs) in well under a minute. {@code
 * -Drelayer.fuzz.scale=N} multiplies every count by N, and {@code -Drelayer.fuzz.seed=S} replays a
 * run (the seed of each run is printed).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OddInputFuzzIT {

  private static final int SCALE = Integer.getInteger("relayer.fuzz.scale", 1);
  private static final long SEED = Long.getLong("relayer.fuzz.seed", System.nanoTime());

  /** The longest base name: it decides whether a prefix fits. */
  private static final String LONGEST_BASE = "outbox_dead_message_id_check";

  /** Pieces that odd input is made of, most of them a known hazard for SQL or encodings. */
  private static final String[] PIECES = {
    "a",
    "Z",
    "0",
    "_",
    "-",
    " ",
    "  ",
    "\t",
    "\n",
    "\r",
    "\u000b",
    "\u0001",
    "\u001f",
    "\u007f",
    "\0",
    "\"",
    "\"\"",
    "'",
    "''",
    "\\",
    "\\'",
    "\\\\",
    "$$",
    "$",
    "${",
    "${relayer.schema}",
    "}",
    ";",
    "--",
    "/*",
    "*/",
    ":",
    ":name",
    "?",
    "%",
    "%I",
    "é",
    "€",
    "😀",
    "\u2028",
    "\uFEFF",
    "\u00a0",
    "\u3000",
    "\uD800",
    "\uDBFF",
    "\uDC00",
    "\uDFFF",
    " prefix=",
    "pg_",
    "PG_",
    "public",
    "relayer_",
    "E'",
    "U&'",
    "\\x41",
    "\\u0041",
    "x".repeat(20)
  };

  private final Random random = new Random(SEED);
  private TestDatabase database;
  private DSLContext dsl;
  private Set<String> existingSchemas;

  @BeforeAll
  void createDatabase() {
    System.out.println("OddInputFuzzIT seed " + SEED + " scale " + SCALE);
    database = TestDatabase.create();
    dsl = DSL.using(database.dataSource(), SQLDialect.POSTGRES);
    // Where a store would write if the render mapping ignored its schema.
    RelayerSchemaInstaller.applyScript(
        database.dataSource(), SchemaOptions.of("relayer", "relayer_"));
    existingSchemas =
        new HashSet<>(dsl.fetch("select nspname from pg_namespace").getValues(0, String.class));
  }

  @AfterAll
  void dropDatabase() {
    database.close();
  }

  // ---------------------------------------------------------------------------------------------
  // Generators and the independent rules
  // ---------------------------------------------------------------------------------------------

  private String piece() {
    return PIECES[random.nextInt(PIECES.length)];
  }

  /** Odd text: a few pieces, sometimes only whitespace, sometimes multi-byte near a byte budget. */
  private String oddText(int maxBytes) {
    return switch (random.nextInt(10)) {
      case 0 -> " ".repeat(1 + random.nextInt(3)) + (random.nextBoolean() ? "\t" : "");
      case 1, 2 -> {
        // Multi-byte characters up to a few bytes either side of maxBytes.
        String[] wide = {"é", "€", "😀", "a"};
        int target = maxBytes - 3 + random.nextInt(7);
        StringBuilder text = new StringBuilder();
        while (bytes(text.toString()) < target) {
          text.append(wide[random.nextInt(wide.length)]);
        }
        yield text.toString();
      }
      default -> {
        StringBuilder text = new StringBuilder();
        int pieces = 1 + random.nextInt(6);
        for (int i = 0; i < pieces; i++) {
          text.append(piece());
        }
        yield text.toString();
      }
    };
  }

  private static int bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8).length;
  }

  /** True when {@code text} survives UTF-8 both ways: no unpaired surrogate. */
  private static boolean encodable(String text) {
    return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(text);
  }

  private static boolean writable(String text) {
    return text.indexOf('\0') < 0 && encodable(text);
  }

  private static boolean blank(String text) {
    return text.codePoints().allMatch(Character::isWhitespace);
  }

  /**
   * The "Naming rules" of docs/deploying-the-schema.md, written independently of {@link
   * SchemaOptions}.
   */
  private static boolean validNames(String schema, String prefix) {
    boolean schemaOk =
        !schema.isEmpty()
            && !blank(schema)
            && writable(schema)
            && !schema.startsWith("pg_")
            && !schema.contains("${")
            && bytes(schema) <= 63;
    boolean prefixOk =
        writable(prefix) && !prefix.contains("${") && bytes(prefix + LONGEST_BASE) <= 63;
    return schemaOk && prefixOk;
  }

  private String oddSchema() {
    String schema = random.nextInt(8) == 0 ? "pg_" + oddText(20) : oddText(63);
    return schema;
  }

  private String oddPrefix() {
    int budget = 63 - LONGEST_BASE.length();
    return random.nextInt(6) == 0 ? "" : oddText(budget);
  }

  // ---------------------------------------------------------------------------------------------
  // Identifiers
  // ---------------------------------------------------------------------------------------------

  @Test
  void oddSchemasAndPrefixesAreRejectedBeforeAnySqlExactlyWhenTheNamingRulesSay() {
    int cases = 5000 * SCALE;
    int accepted = 0;
    for (int i = 0; i < cases; i++) {
      String schema = oddSchema();
      String prefix = oddPrefix();
      boolean valid = validNames(schema, prefix);
      try {
        SchemaOptions options = SchemaOptions.of(schema, prefix);
        if (!valid) {
          fail("accepted, against the rules: " + options);
        }
        accepted++;
        assertThat(options.schema()).isEqualTo(schema);
        assertThat(options.tablePrefix()).isEqualTo(prefix);
      } catch (InvalidInputException e) {
        if (valid) {
          fail("rejected, though the rules allow it: " + e.getMessage());
        }
        assertThat(e.getMessage())
            .as("a short message naming what is wrong")
            .hasSizeLessThan(600)
            .containsAnyOf("schema", "table prefix", "identifier");
      }
    }
    assertThat(accepted).as("some cases are valid").isGreaterThan(cases / 20);
    assertThat(cases - accepted).as("some cases are invalid").isGreaterThan(cases / 20);
  }

  /** A valid pair of odd names whose schema does not exist yet. */
  private SchemaOptions validOddNames(Set<String> used) {
    while (true) {
      String schema = oddSchema();
      String prefix = oddPrefix();
      if (validNames(schema, prefix) && !existingSchemas.contains(schema) && used.add(schema)) {
        return SchemaOptions.of(schema, prefix);
      }
    }
  }

  @Test
  void oddNamesInstalledByTheScriptAreUsedExactlyByTheStore() {
    Set<String> used = new HashSet<>();
    for (int i = 0; i < 12 * SCALE; i++) {
      SchemaOptions names = validOddNames(used);
      RelayerSchemaInstaller.applyScript(database.dataSource(), names);
      try {
        assertInstalledAndUsedExactly(names);
      } finally {
        dsl.dropSchema(DSL.name(names.schema())).cascade().execute();
      }
    }
    assertThat(dsl.fetchCount(DSL.table(DSL.name("relayer", "relayer_outbox"))))
        .as("nothing went to the generated schema")
        .isZero();
  }

  @Test
  void oddNamesInstalledByLiquibaseAreUsedExactlyByTheStore() {
    Set<String> used = new HashSet<>();
    for (int i = 0; i < 2 * SCALE; i++) {
      SchemaOptions names = validOddNames(used);
      if (names.schema().contains(" prefix=")) {
        // Liquibase's own rule: it would make the changeset id ambiguous (see LiquibaseValuesIT).
        i--;
        continue;
      }
      RelayerSchemaInstaller.applyChangelog(database.dataSource(), names);
      RelayerSchemaInstaller.applyChangelog(database.dataSource(), names);
      try {
        assertInstalledAndUsedExactly(names);
      } finally {
        dsl.dropSchema(DSL.name(names.schema())).cascade().execute();
      }
    }
  }

  private void assertInstalledAndUsedExactly(SchemaOptions names) {
    String table = names.tablePrefix() + "outbox";
    // Bound values, compared by PostgreSQL: the catalog holds exactly these names.
    assertThat(
            dsl.fetchCount(
                DSL.table(DSL.name("pg_catalog", "pg_class"))
                    .join(DSL.table(DSL.name("pg_catalog", "pg_namespace")))
                    .on(
                        DSL.field(DSL.name("relnamespace"))
                            .eq(DSL.field(DSL.name("pg_namespace", "oid")))),
                DSL.field(DSL.name("nspname"), String.class)
                    .eq(names.schema())
                    .and(DSL.field(DSL.name("relname"), String.class).eq(table))))
        .as("table %s in schema %s", table, names.schema())
        .isEqualTo(1);
    RelayerStore store = RelayerStore.create(StoreOptions.of(names));
    store.verifySchema(dsl);
    Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
    long id = store.enqueue(dsl, StoreFixture.unordered());
    store.enqueue(dsl, StoreFixture.ordered("k"));
    // jOOQ's own quoting of the names, not Relayer's.
    assertThat(dsl.fetchCount(DSL.table(DSL.name(names.schema(), table)))).isEqualTo(2);
    Claim claim =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(dsl, new ClaimByIds(List.of(id), now, Duration.ofSeconds(30)));
    assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactly(id);
    assertThat(
            TestPassSql.of(store)
                .outbox()
                .recordFailures(dsl, claim.token(), List.of(new FailedSend(id, "e", now))))
        .isEqualTo(1);
    assertThat(store.tryRecordInbox(dsl, "c", UUID.randomUUID())).isEqualTo(InboxOutcome.FIRST);
    assertThat(dsl.fetchCount(DSL.table(DSL.name(names.schema(), names.tablePrefix() + "inbox"))))
        .isEqualTo(1);
  }

  // ---------------------------------------------------------------------------------------------
  // Text
  // ---------------------------------------------------------------------------------------------

  /** A message with one odd field; which one, and what, is random. */
  private record Case(String field, NewMessage.Builder builder, String text, boolean required) {}

  private Case oddMessage() {
    String text = random.nextInt(4) == 0 ? oddText(300) : oddText(40);
    NewMessage.Builder builder = StoreFixture.message();
    return switch (random.nextInt(8)) {
      case 0 -> new Case("transport", builder.transport(text), text, true);
      case 1 -> new Case("destination", builder.destination(text), text, true);
      case 2 -> new Case("messageType", builder.messageType(text), text, true);
      case 3 -> new Case("header name", builder.header(text, "v"), text, false);
      case 4 -> new Case("value", builder.header("h", text), text, false);
      case 5 -> new Case("orderingKey", builder.orderingKey(text), text, false);
      case 6 -> new Case("tenantId", builder.tenantId(text), text, false);
      default -> new Case("destination", builder.destination("d" + text), "d" + text, true);
    };
  }

  @Test
  void oddTextIsRejectedBeforeAnySqlOrStoredExactlyWithStandardConformingStringsOff()
      throws Exception {
    SchemaOptions names = SchemaOptions.of("fuzz \"text\"", "t'\\_");
    RelayerSchemaInstaller.applyScript(database.dataSource(), names);
    RelayerStore store = RelayerStore.create(StoreOptions.of(names));
    DSLContext mapped = new StoreDsl(names).map(dsl);
    try (Connection connection = database.connect()) {
      try (Statement statement = connection.createStatement()) {
        statement.execute("SET standard_conforming_strings = off");
        statement.execute("SET escape_string_warning = off");
      }
      DSLContext legacy = DSL.using(connection, SQLDialect.POSTGRES);
      List<NewMessage> batch = new ArrayList<>();
      Map<UUID, NewMessage> written = new HashMap<>();
      int rejected = 0;
      for (int i = 0; i < 2000 * SCALE; i++) {
        Case c = oddMessage();
        boolean valid =
            writable(c.text())
                && (!c.required() || !blank(c.text()))
                && (!c.field().equals("orderingKey") || !c.text().isEmpty());
        try {
          NewMessage message = c.builder().build();
          if (!valid) {
            fail("accepted, against the rules: " + c.field() + " " + escape(c.text()));
          }
          batch.add(message);
          written.put(message.messageId(), message);
        } catch (InvalidInputException e) {
          if (valid) {
            fail("rejected, though the rules allow it: " + e.getMessage());
          }
          rejected++;
          assertThat(e.getMessage()).contains(c.field());
        }
        if (batch.size() == 150 || i == 2000 * SCALE - 1) {
          store.enqueue(legacy, batch);
          batch.clear();
        }
      }
      assertThat(rejected).isPositive();
      List<RelayerOutboxRecord> rows = mapped.selectFrom(RELAYER_OUTBOX).fetch();
      assertThat(rows).hasSize(written.size());
      for (RelayerOutboxRecord row : rows) {
        NewMessage message = written.get(row.getMessageId());
        assertThat(row.getTransport()).isEqualTo(message.transport());
        assertThat(row.getDestination()).isEqualTo(message.destination());
        assertThat(row.getMessageType()).isEqualTo(message.messageType());
        assertThat(HeadersJson.read(row.getHeaders())).isEqualTo(message.headers());
        assertThat(row.getOrderingKey()).isEqualTo(message.orderingKey());
        assertThat(row.getTenantId()).isEqualTo(message.tenantId());
        assertThat(row.getBody()).isEqualTo(message.body());
      }
      assertOddErrorTextsAreStoredAsDocumented(store, legacy, mapped, rows);
      assertOddConsumersAreRejectedOrKeptApart(store, legacy, mapped);
    }
  }

  private void assertOddErrorTextsAreStoredAsDocumented(
      RelayerStore store, DSLContext legacy, DSLContext mapped, List<RelayerOutboxRecord> rows) {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
    List<Long> unordered =
        rows.stream()
            .filter(r -> r.getOrderingKey() == null)
            .map(RelayerOutboxRecord::getId)
            .toList();
    Claim claim =
        TestPassSql.of(store)
            .outbox()
            .claimByIds(legacy, new ClaimByIds(unordered, now, Duration.ofMinutes(5)));
    Map<Long, String> expected = new LinkedHashMap<>();
    List<FailedSend> failures = new ArrayList<>();
    for (ClaimedMessage message : claim.messages()) {
      String error = oddText(random.nextInt(20) == 0 ? 2100 : 200);
      failures.add(new FailedSend(message.id(), error, now.plusSeconds(60)));
      expected.put(message.id(), storedError(error));
    }
    for (int from = 0; from < failures.size(); from += 500) {
      TestPassSql.of(store)
          .outbox()
          .recordFailures(
              legacy, claim.token(), failures.subList(from, Math.min(failures.size(), from + 500)));
    }
    Map<Long, String> stored = new HashMap<>();
    mapped
        .select(RELAYER_OUTBOX.ID, RELAYER_OUTBOX.LAST_ERROR)
        .from(RELAYER_OUTBOX)
        .where(RELAYER_OUTBOX.ID.in(expected.keySet()))
        .forEach(r -> stored.put(r.value1(), r.value2()));
    expected.forEach((id, error) -> assertThat(stored.get(id)).as("row %s", id).isEqualTo(error));
  }

  /**
   * docs/troubleshooting.md's rule for stored error texts, written independently of {@link
   * ErrorText}.
   */
  private static String storedError(String error) {
    String text = error;
    if (text.length() > RelayerStore.MAX_ERROR_LENGTH) {
      int end = RelayerStore.MAX_ERROR_LENGTH - 1;
      if (Character.isSurrogatePair(text.charAt(end - 1), text.charAt(end))) {
        end--;
      }
      text = text.substring(0, end) + "…";
    }
    StringBuilder stored = new StringBuilder();
    text.codePoints()
        .forEach(c -> stored.appendCodePoint(c == 0 || (c >= 0xD800 && c <= 0xDFFF) ? 0xFFFD : c));
    return stored.toString();
  }

  private void assertOddConsumersAreRejectedOrKeptApart(
      RelayerStore store, DSLContext legacy, DSLContext mapped) {
    UUID id = UUID.randomUUID();
    Set<String> recorded = new HashSet<>();
    for (int i = 0; i < 300 * SCALE; i++) {
      String consumer = oddText(40);
      boolean valid = writable(consumer) && !blank(consumer);
      try {
        InboxOutcome outcome = store.tryRecordInbox(legacy, consumer, id);
        if (!valid) {
          fail("accepted, against the rules: consumer " + escape(consumer));
        }
        assertThat(outcome)
            .as("consumer %s", escape(consumer))
            .isEqualTo(recorded.add(consumer) ? InboxOutcome.FIRST : InboxOutcome.DUPLICATE);
      } catch (InvalidInputException e) {
        if (valid) {
          fail("rejected, though the rules allow it: " + e.getMessage());
        }
        assertThat(e.getMessage()).contains("consumer");
      }
    }
    assertThat(
            new HashSet<>(
                mapped
                    .select(RELAYER_INBOX.CONSUMER)
                    .from(RELAYER_INBOX)
                    .fetch(RELAYER_INBOX.CONSUMER)))
        .isEqualTo(recorded);
  }

  private static String escape(String text) {
    StringBuilder escaped = new StringBuilder();
    text.chars()
        .forEach(
            c -> escaped.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", c) : (char) c));
    return escaped.toString();
  }
}
