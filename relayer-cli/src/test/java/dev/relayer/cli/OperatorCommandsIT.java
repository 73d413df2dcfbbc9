package dev.relayer.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.store.internal.ErrorFingerprint;
import dev.relayer.store.ops.StoreOperations;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code relayer dead …} and {@code relayer parked …}, each run as its own {@code java} process (no
 * terminal: standard input is a pipe) against a real PostgreSQL, on tables of an odd schema and
 * prefix.
 */
class OperatorCommandsIT {

  /** Stands in for a password: must never appear in what a command prints. */
  static final String SECRET = "s3cret-Pa55";

  static final String OUTBOX = "\"messaging\".\"orders_outbox\"";
  static final String DEAD = "\"messaging\".\"orders_outbox_dead\"";

  record Run(int exitCode, String out, String err) {}

  TestDatabase db;
  RelayerStore store;
  DSLContext dsl;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create();
    SchemaOptions schema = SchemaOptions.of("messaging", "orders_");
    RelayerSchemaInstaller.applyScript(db.dataSource(), schema);
    store = RelayerStore.create(StoreOptions.of(schema));
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  /** The database's URL with its user and a password (the real one, or one trust ignores). */
  private String url() {
    String url = db.jdbcUrl();
    String password = db.password() == null ? SECRET : db.password();
    return url
        + (url.contains("?") ? "&" : "?")
        + "user="
        + URLEncoder.encode(db.user(), StandardCharsets.UTF_8)
        + "&password="
        + URLEncoder.encode(password, StandardCharsets.UTF_8);
  }

  private String password() {
    return db.password() == null ? SECRET : db.password();
  }

  /** Runs {@code relayer args… --url … --schema messaging --prefix orders_} as a process. */
  private Run relayer(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--url=" + url(), "--schema", "messaging", "--prefix", "orders_"));
    return process(Map.of(), all);
  }

  private static Run process(Map<String, String> env, List<String> args) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(java, "-cp", System.getProperty("java.class.path"), RelayerCli.class.getName()));
    command.addAll(args);
    Path out = Files.createTempFile("relayer-out", ".txt");
    Path err = Files.createTempFile("relayer-err", ".txt");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .redirectInput(ProcessBuilder.Redirect.PIPE);
      builder.environment().keySet().removeIf(k -> k.startsWith("PG") || k.equals("RELAYER_URL"));
      builder.environment().putAll(env);
      Process process = builder.start();
      process.getOutputStream().close();
      assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
      return new Run(process.exitValue(), read(out), read(err));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  private static String read(Path path) throws IOException {
    return Files.readString(path, StandardCharsets.UTF_8);
  }

  private static NewMessage message(String type, String destination, String key) {
    NewMessage.Builder b =
        NewMessage.builder()
            .transport("rabbitmq")
            .destination(destination)
            .messageType(type)
            .header("traceparent", "00-ab-cd-01")
            .body(("{\"type\":\"" + type + "\"}").getBytes(StandardCharsets.UTF_8));
    return key == null ? b.build() : b.orderingKey(key).build();
  }

  /** Enqueues messages and moves them to the dead table as a rejecting broker would. */
  private List<Long> buryRejected(String type, String destination, int count, String error) {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      messages.add(message(type, destination, null));
    }
    List<Long> ids = store.enqueue(dsl, messages);
    dsl.execute(
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
            + " cast(? as timestamptz), 'rejected', cast(? as text) from moved",
        ids.toArray(Long[]::new),
        error,
        OffsetDateTime.ofInstant(Instant.now().truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC),
        ErrorFingerprint.of(error));
    return ids;
  }

  private List<Long> deadIds() {
    return dsl.fetch("select id from " + DEAD + " order by id").getValues(0, Long.class);
  }

  private List<UUID> deadMessageIds(List<Long> ids) {
    return dsl.fetch(
            "select message_id from " + DEAD + " where id = any(?) order by id",
            (Object) ids.toArray(Long[]::new))
        .getValues(0, UUID.class);
  }

  private List<UUID> outboxMessageIds() {
    return dsl.fetch("select message_id from " + OUTBOX + " where status = 'pending' order by id")
        .getValues(0, UUID.class);
  }

  private void assertNoSecret(Run run) {
    assertThat(run.out()).doesNotContain(password());
    assertThat(run.err()).doesNotContain(password());
  }

  @Test
  void deadGroupsPrintsOneGroupPerFingerprintAsATableAndAsJson() throws Exception {
    buryRejected("InvoiceIssued", "billing", 3, "NOT_FOUND - no exchange 'billing'");
    buryRejected("OrderPlaced", "orders", 1, "PRECONDITION_FAILED - message too large");

    Run table = relayer("dead", "groups");
    Run json = relayer("dead", "groups", "--json");

    assertThat(table.exitCode()).as(table.err()).isZero();
    assertThat(table.err()).isEmpty();
    List<String> lines = table.out().lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).startsWith("FINGERPRINT").contains("COUNT").contains("DESTINATIONS");
    assertThat(lines.get(1)).contains("billing").contains("NOT_FOUND - no exchange 'billing'");
    assertThat(json.exitCode()).as(json.err()).isZero();
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> groups =
        (List<Map<String, Object>>) JsonReader.object(json.out()).get("groups");
    assertThat(groups).hasSize(2);
    assertThat(groups.get(0))
        .containsEntry("count", 3L)
        .containsEntry("fingerprint", ErrorFingerprint.of("NOT_FOUND - no exchange 'billing'"))
        .containsEntry("destinations", List.of("billing"))
        .containsEntry("sample_error", "NOT_FOUND - no exchange 'billing'")
        .containsKeys("first_failed_at", "last_failed_at");
    Instant.parse((String) groups.get(0).get("first_failed_at"));
    assertNoSecret(table);
    assertNoSecret(json);
  }

  @Test
  void deadListAndShowPrintTheRowsTheFiltersChooseWithTheirFieldsInJson() throws Exception {
    List<Long> billing = buryRejected("InvoiceIssued", "billing", 2, "no exchange 'billing'");
    buryRejected("OrderPlaced", "orders", 1, "message too large");

    Run list = relayer("dead", "list", "--type", "InvoiceIssued", "--json");
    Run show = relayer("dead", "show", billing.get(0).toString(), "--json");
    Run table = relayer("dead", "list", "--destination", "orders");

    assertThat(list.exitCode()).as(list.err()).isZero();
    Map<String, Object> page = JsonReader.object(list.out());
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> rows = (List<Map<String, Object>>) page.get("rows");
    assertThat(rows).extracting(r -> r.get("id")).containsExactlyElementsOf(billing);
    assertThat(page.get("next_after")).isSameAs(JsonReader.NULL);
    assertThat(rows.get(0))
        .containsOnlyKeys(
            "id",
            "message_id",
            "transport",
            "destination",
            "message_type",
            "ordering_key",
            "tenant_id",
            "attempts",
            "reason",
            "failed_at",
            "fingerprint",
            "last_error",
            "body_bytes")
        .containsEntry("message_id", deadMessageIds(billing).get(0).toString())
        .containsEntry("reason", "rejected")
        .containsEntry("ordering_key", JsonReader.NULL);
    assertThat(show.exitCode()).as(show.err()).isZero();
    Map<String, Object> row = JsonReader.object(show.out());
    assertThat(row)
        .containsEntry("headers", Map.of("traceparent", "00-ab-cd-01"))
        .containsEntry("body_text", "{\"type\":\"InvoiceIssued\"}")
        .containsEntry("last_error", "no exchange 'billing'");
    assertThat(table.exitCode()).isZero();
    assertThat(table.out().lines()).hasSize(2);
    assertThat(table.out().lines().toList().get(1)).contains("OrderPlaced").contains("rejected");
  }

  @Test
  void deadShowOfAnIdThatIsNotDeadFailsWithOneLine() throws Exception {
    Run run = relayer("dead", "show", "999");

    assertThat(run.exitCode()).isEqualTo(RelayerCli.EXIT_FAILURE);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().strip()).isEqualTo("relayer dead show: no dead row with id 999");
  }

  @Test
  void replayMovesTheMatchingRowsBackToTheOutboxWithTheirMessageIdsAndLeavesTheOthers()
      throws Exception {
    List<Long> billing = buryRejected("InvoiceIssued", "billing", 3, "no exchange 'billing'");
    List<Long> orders = buryRejected("OrderPlaced", "orders", 2, "message too large");
    List<UUID> messageIds = deadMessageIds(billing);

    Run run =
        relayer(
            "dead",
            "replay",
            "--fingerprint",
            ErrorFingerprint.of("no exchange 'billing'"),
            "--yes");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err()).isEmpty();
    assertThat(run.out()).contains("replayed 3 dead rows (0 ordered)");
    assertThat(outboxMessageIds()).containsExactlyElementsOf(messageIds);
    assertThat(deadIds()).containsExactlyElementsOf(orders);
    assertNoSecret(run);
  }

  @Test
  void purgeWithAFilterDeletesOnlyTheRowsItMatches() throws Exception {
    buryRejected("InvoiceIssued", "billing", 2, "no exchange 'billing'");
    List<Long> orders = buryRejected("OrderPlaced", "orders", 2, "message too large");

    Run run = relayer("dead", "purge", "--destination", "billing", "--reason", "rejected", "--yes");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("purged 2 dead rows");
    assertThat(deadIds()).containsExactlyElementsOf(orders);
    assertThat(outboxMessageIds()).isEmpty();
  }

  @Test
  void replayAndPurgeByIdActOnTheNamedRowsOnly() throws Exception {
    List<Long> ids = buryRejected("InvoiceIssued", "billing", 4, "no exchange 'billing'");
    UUID second = deadMessageIds(List.of(ids.get(1))).get(0);

    Run replay = relayer("dead", "replay", "--id", ids.get(1).toString(), "--yes");
    Run purge =
        relayer("dead", "purge", "--id", ids.get(2) + "," + ids.get(3), "--id", "99999", "--yes");

    assertThat(replay.exitCode()).as(replay.err()).isZero();
    assertThat(replay.out()).contains("replayed 1 dead rows");
    assertThat(purge.exitCode()).as(purge.err()).isZero();
    assertThat(purge.out()).contains("purged 2 dead rows");
    assertThat(outboxMessageIds()).containsExactly(second);
    assertThat(deadIds()).containsExactly(ids.get(0));
  }

  @Test
  void withoutYesAndWithoutATerminalReplayAndPurgeRefuseAndChangeNothing() throws Exception {
    List<Long> ids = buryRejected("InvoiceIssued", "billing", 2, "no exchange 'billing'");

    Run replay = relayer("dead", "replay", "--type", "InvoiceIssued");
    Run purge = relayer("dead", "purge", "--all");

    assertThat(replay.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(replay.out()).isEmpty();
    assertThat(replay.err().lines()).hasSize(1);
    assertThat(replay.err())
        .startsWith("relayer dead replay: would replay 2 dead rows matching messageType=Invoice")
        .contains("refusing without --yes");
    assertThat(purge.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(purge.err()).contains("would purge 2 dead rows matching all");
    assertThat(deadIds()).containsExactlyElementsOf(ids);
    assertThat(outboxMessageIds()).isEmpty();
    assertNoSecret(replay);
  }

  @Test
  void dryRunPrintsTheCountAndChangesNothing() throws Exception {
    List<Long> ids = buryRejected("InvoiceIssued", "billing", 3, "no exchange 'billing'");

    Run replay = relayer("dead", "replay", "--destination", "billing", "--dry-run");
    Run purge = relayer("dead", "purge", "--all", "--dry-run", "--yes");

    assertThat(replay.exitCode()).as(replay.err()).isZero();
    assertThat(replay.out().strip())
        .isEqualTo(
            "would replay 3 dead rows matching destination=billing; nothing changed (--dry-run)");
    assertThat(purge.exitCode()).isZero();
    assertThat(purge.out()).startsWith("would purge 3 dead rows matching all");
    assertThat(deadIds()).containsExactlyElementsOf(ids);
  }

  @Test
  void replayAndPurgeWithoutAFilterOrIdRefuseUnlessAllIsGiven() throws Exception {
    buryRejected("InvoiceIssued", "billing", 2, "no exchange 'billing'");

    Run replay = relayer("dead", "replay", "--yes");
    Run both = relayer("dead", "purge", "--all", "--type", "InvoiceIssued", "--yes");
    Run purge = relayer("dead", "purge", "--all", "--yes");

    assertThat(replay.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(replay.err().lines()).hasSize(1);
    assertThat(replay.err()).contains("or --all to replay every dead row");
    assertThat(both.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(both.err()).contains("--all cannot be combined with a filter or --id");
    assertThat(purge.exitCode()).as(purge.err()).isZero();
    assertThat(purge.out()).contains("purged 2 dead rows");
    assertThat(deadIds()).isEmpty();
  }

  @Test
  void badFilterValuesAreUsageErrors() throws Exception {
    Run instant = relayer("dead", "list", "--failed-from", "yesterday");
    Run order =
        relayer(
            "dead",
            "groups",
            "--failed-from",
            "2026-03-02T00:00:00Z",
            "--failed-before",
            "2026-03-01T00:00:00Z");

    assertThat(instant.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(instant.err().lines()).hasSize(1);
    assertThat(instant.err()).contains("--failed-from");
    assertThat(order.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(order.err()).contains("failedBefore must be after failedFrom");
  }

  @Test
  void aPasswordInTheUrlIsNeverPrintedEvenWhenTheCommandFails() throws Exception {
    Run wrongPrefix =
        process(Map.of(), List.of("dead", "groups", "--url=" + url(), "--prefix", "missing_"));
    Run noServer =
        process(
            Map.of(),
            List.of(
                "dead",
                "list",
                "--url=jdbc:postgresql://127.0.0.1:1/app?user=a&password="
                    + SECRET
                    + "&connectTimeout=2"));
    Run notPostgres =
        process(
            Map.of(),
            List.of("parked", "list", "--url=jdbc:mysql://db/app?user=a&password=" + SECRET));

    assertThat(wrongPrefix.exitCode()).isEqualTo(RelayerCli.EXIT_FAILURE);
    assertThat(wrongPrefix.err().lines()).hasSize(1);
    assertThat(wrongPrefix.err()).startsWith("relayer dead groups: cannot use ");
    assertThat(noServer.exitCode()).isEqualTo(RelayerCli.EXIT_FAILURE);
    assertThat(noServer.err()).contains("password=***");
    assertThat(notPostgres.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(notPostgres.err()).contains("password=***");
    for (Run run : List.of(wrongPrefix, noServer, notPostgres)) {
      assertThat(run.out()).isEmpty();
      assertNoSecret(run);
      assertThat(run.err()).doesNotContain(SECRET);
    }
  }

  @Test
  void theLibpqEnvironmentNamesTheDatabaseWhenThereIsNoUrl() throws Exception {
    buryRejected("InvoiceIssued", "billing", 1, "no exchange 'billing'");
    URI uri = URI.create(db.jdbcUrl().substring("jdbc:".length()));
    Map<String, String> env =
        Map.of(
            "PGHOST", uri.getHost(),
            "PGPORT", Integer.toString(uri.getPort() < 0 ? 5432 : uri.getPort()),
            "PGDATABASE", uri.getPath().substring(1),
            "PGUSER", db.user(),
            "PGPASSWORD", password());

    Run run =
        process(
            env, List.of("dead", "list", "--json", "--schema", "messaging", "--prefix", "orders_"));
    Run none = process(Map.of(), List.of("dead", "list"));

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat((List<?>) JsonReader.object(run.out()).get("rows")).hasSize(1);
    assertNoSecret(run);
    assertThat(none.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(none.err())
        .contains("no database: give --url or set RELAYER_URL")
        .contains("PGHOST");
  }

  // ---------------------------------------------------------------------------------------------
  // Audit trail and --json outcomes
  // ---------------------------------------------------------------------------------------------

  static final String OPERATIONS = "\"messaging\".\"orders_operations\"";

  /** The audit rows, oldest first, as {@code operator operation rows filter}. */
  private List<String> auditRows() {
    return dsl.fetch(
            "select operator || ' ' || operation || ' ' || rows || ' ' || filter::text from "
                + OPERATIONS
                + " order by id")
        .getValues(0, String.class);
  }

  @Test
  void replayAndPurgeWriteOneAuditRowEachWithTheOperatorTheFilterAndTheCount() throws Exception {
    List<Long> billing = buryRejected("InvoiceIssued", "billing", 3, "no exchange 'billing'");
    List<Long> orders = buryRejected("OrderPlaced", "orders", 2, "message too large");
    String fingerprint = ErrorFingerprint.of("no exchange 'billing'");

    Run replay =
        relayer("dead", "replay", "--fingerprint", fingerprint, "--operator", "alice", "--yes");
    Run purge =
        relayer(
            "dead",
            "purge",
            "--id",
            orders.get(0) + "," + orders.get(1),
            "--operator=bob on call",
            "--yes");

    assertThat(replay.exitCode()).as(replay.err()).isZero();
    assertThat(purge.exitCode()).as(purge.err()).isZero();
    assertThat(auditRows())
        .containsExactly(
            "alice dead-replay 3 {\"fingerprint\": \"" + fingerprint + "\"}",
            "bob on call dead-purge 2 {\"ids\": [" + orders.get(0) + ", " + orders.get(1) + "]}");
    assertThat(billing).hasSize(3);
  }

  @Test
  void withoutOperatorTheAuditRowNamesTheOsUser() throws Exception {
    buryRejected("InvoiceIssued", "billing", 1, "no exchange 'billing'");

    Run purge = relayer("dead", "purge", "--all", "--yes");

    assertThat(purge.exitCode()).as(purge.err()).isZero();
    assertThat(auditRows()).containsExactly(System.getProperty("user.name") + " dead-purge 1 {}");
  }

  @Test
  void aDryRunARefusalAndAnActionOnNothingWriteNoAuditRow() throws Exception {
    buryRejected("InvoiceIssued", "billing", 2, "no exchange 'billing'");

    Run dryRun = relayer("dead", "replay", "--all", "--dry-run", "--operator", "alice");
    Run refused = relayer("dead", "purge", "--all", "--operator", "alice");
    Run nothing = relayer("dead", "purge", "--destination", "nowhere", "--yes");
    Run release = relayer("parked", "release", "--all", "--yes");

    assertThat(dryRun.exitCode()).isZero();
    assertThat(refused.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(nothing.exitCode()).isZero();
    assertThat(release.exitCode()).isZero();
    assertThat(auditRows()).isEmpty();
    assertThat(deadIds()).hasSize(2);
  }

  @Test
  void replayAndPurgePrintTheirOutcomeAsJson() throws Exception {
    buryRejected("InvoiceIssued", "billing", 2, "no exchange 'billing'");
    buryRejected("OrderPlaced", "orders", 1, "message too large");

    Run dryRun = relayer("dead", "replay", "--destination", "billing", "--dry-run", "--json");
    Run replay =
        relayer("dead", "replay", "--destination", "billing", "--json", "--operator", "alice");

    assertThat(dryRun.exitCode()).as(dryRun.err()).isZero();
    assertThat(JsonReader.object(dryRun.out()))
        .containsOnlyKeys(
            "operation",
            "operator",
            "dry_run",
            "filter",
            "matched",
            "replayed",
            "ordered",
            "batches",
            "parked_keys")
        .containsEntry("operation", "dead-replay")
        .containsEntry("dry_run", true)
        .containsEntry("matched", 2L)
        .containsEntry("replayed", 0L);
    // Without --yes and without a terminal, --json changes nothing about the refusal.
    assertThat(replay.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(replay.out()).isEmpty();
    Run confirmed =
        relayer(
            "dead", "replay", "--destination", "billing", "--json", "--operator", "alice", "--yes");
    assertThat(confirmed.exitCode()).as(confirmed.err()).isZero();
    assertThat(JsonReader.object(confirmed.out()))
        .containsEntry("operation", "dead-replay")
        .containsEntry("operator", "alice")
        .containsEntry("dry_run", false)
        .containsEntry("filter", "destination=billing")
        .containsEntry("matched", 2L)
        .containsEntry("replayed", 2L)
        .containsEntry("ordered", 0L)
        .containsEntry("batches", 1L)
        .containsEntry("parked_keys", List.of());
    Run purge = relayer("dead", "purge", "--all", "--json", "--yes", "--operator", "alice");
    assertThat(purge.exitCode()).as(purge.err()).isZero();
    assertThat(JsonReader.object(purge.out()))
        .containsOnlyKeys(
            "operation", "operator", "dry_run", "filter", "matched", "purged", "batches")
        .containsEntry("operation", "dead-purge")
        .containsEntry("matched", 1L)
        .containsEntry("purged", 1L);
  }

  @Test
  void auditListPrintsTheNewestRowsFirstAsATableAndAsJson() throws Exception {
    List<Long> ids = buryRejected("InvoiceIssued", "billing", 3, "no exchange 'billing'");
    relayer("dead", "replay", "--id", ids.get(0).toString(), "--operator", "alice", "--yes");
    relayer("dead", "purge", "--id", ids.get(1).toString(), "--operator", "bob", "--yes");

    Run table = relayer("audit", "list");
    Run json = relayer("audit", "list", "--json");
    Run since = relayer("audit", "list", "--json", "--since", "2999-01-01T00:00:00Z");
    Run limited = relayer("audit", "list", "--json", "--limit", "1");

    assertThat(table.exitCode()).as(table.err()).isZero();
    List<String> lines = table.out().lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).startsWith("ID").contains("OPERATOR").contains("FILTER");
    assertThat(lines.get(1)).contains("bob").contains("dead-purge");
    assertThat(lines.get(2)).contains("alice").contains("dead-replay");
    assertThat(json.exitCode()).as(json.err()).isZero();
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> rows =
        (List<Map<String, Object>>) JsonReader.object(json.out()).get("operations");
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0))
        .containsOnlyKeys("id", "at", "operator", "operation", "filter", "rows")
        .containsEntry("operator", "bob")
        .containsEntry("operation", "dead-purge")
        .containsEntry("filter", Map.of("ids", List.of(ids.get(1))))
        .containsEntry("rows", 1L);
    Instant.parse((String) rows.get(0).get("at"));
    assertThat((List<?>) JsonReader.object(since.out()).get("operations")).isEmpty();
    assertThat((List<?>) JsonReader.object(limited.out()).get("operations")).hasSize(1);
  }

  @Test
  void aBlankOrOverlongOperatorIsAUsageErrorAndChangesNothing() throws Exception {
    List<Long> ids = buryRejected("InvoiceIssued", "billing", 1, "no exchange 'billing'");

    Run blank = relayer("dead", "purge", "--all", "--operator=  ", "--yes");
    Run overlong = relayer("dead", "purge", "--all", "--operator=" + "x".repeat(201), "--yes");

    assertThat(blank.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(blank.err()).contains("operator must not be blank");
    assertThat(overlong.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(overlong.err()).contains("operator must be at most 200 characters");
    assertThat(deadIds()).containsExactlyElementsOf(ids);
    assertThat(auditRows()).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // Parked keys
  // ---------------------------------------------------------------------------------------------

  /** Enqueues two rows of {@code key} and parks the first, as the lane worker does. */
  private long park(String key) {
    List<Long> ids =
        store.enqueue(
            dsl,
            List.of(
                message("OrderChanged", "orders", key), message("OrderChanged", "orders", key)));
    dsl.execute(
        "update "
            + OUTBOX
            + " set status = 'parked', parked_at = now(), attempts = 5,"
            + " last_error = 'broker said no' where id = ?",
        ids.get(0));
    return ids.get(0);
  }

  /** Text that drives a terminal: a bidi override and isolate, a C1 CSI, an ESC title, a NEL. */
  static final String HOSTILE =
      "evil\u202Etxt.exe \u2067x\u2069 \u009B31m \u001B]0;pwned\u0007 next\u0085line";

  private static void assertNoTerminalControls(String what, String text) {
    assertThat(text.chars().filter(c -> c != '\n' && TerminalWriter.isUnsafe(c)).boxed())
        .as("%s prints no terminal control raw:%n%s", what, text)
        .isEmpty();
  }

  @Test
  void storedTextsReachTheTerminalWithControlsC1CodesAndBidiCharactersEscaped() throws Exception {
    long head = park("key-\u202Eright-to-left\u009B");
    dsl.execute("update " + OUTBOX + " set last_error = ? where id = ?", HOSTILE, head);
    long dead = buryRejected("InvoiceIssued", "billing-\u2066x", 1, HOSTILE).get(0);

    List<List<String>> commands =
        List.of(
            List.of("status"),
            List.of("status", "--json"),
            List.of("parked", "list"),
            List.of("parked", "list", "--json"),
            List.of("dead", "list"),
            List.of("dead", "list", "--json"),
            List.of("dead", "groups"),
            List.of("dead", "show", Long.toString(dead)),
            List.of("dead", "show", Long.toString(dead), "--json"));
    for (List<String> command : commands) {
      Run run = relayer(command.toArray(String[]::new));
      assertThat(run.exitCode()).as("%s: %s", command, run.err()).isZero();
      assertNoTerminalControls(command.toString(), run.out());
      assertNoTerminalControls(command.toString(), run.err());
      assertThat(run.out()).as("%s", command).contains("\\u202e");
    }
    assertThat(JsonReader.object(relayer("dead", "show", Long.toString(dead), "--json").out()))
        .as("the JSON escapes read back as the stored text")
        .containsEntry("last_error", HOSTILE);
  }

  @Test
  void anOperatorNameWithBidiOrC1CharactersIsRefusedAndNothingChanges() throws Exception {
    park("customer-1");

    Run bidi = relayer("parked", "retry", "customer-1", "--operator", "\u202Enimda", "--yes");
    Run c1 = relayer("parked", "retry", "customer-1", "--operator", "carol\u009B", "--yes");

    assertThat(bidi.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(bidi.err())
        .contains("--operator: operator must not contain")
        .contains("bidirectional formatting characters")
        .contains("U+202E");
    assertThat(c1.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(c1.err()).contains("control characters").contains("U+009B");
    assertThat(auditRows()).isEmpty();
    assertThat(StoreOperations.of(store).parkedKey(dsl, "customer-1")).isPresent();
  }

  private String statusOf(long id) {
    return dsl.fetchValue("select status from " + OUTBOX + " where id = ?", id).toString();
  }

  @Test
  void parkedListPrintsEveryParkedKeyAsATableAndAsJson() throws Exception {
    long head = park("customer-1");

    Run table = relayer("parked", "list");
    Run json = relayer("parked", "list", "--json");

    assertThat(table.exitCode()).as(table.err()).isZero();
    assertThat(table.out().lines().toList().get(0)).startsWith("KEY").contains("HEAD ID");
    assertThat(table.out().lines().toList().get(1))
        .startsWith("customer-1")
        .contains("broker said no");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> parked =
        (List<Map<String, Object>>) JsonReader.object(json.out()).get("parked");
    assertThat(parked)
        .singleElement()
        .satisfies(
            p ->
                assertThat(p)
                    .containsOnlyKeys(
                        "ordering_key",
                        "lane",
                        "head_id",
                        "message_id",
                        "attempts",
                        "parked_at",
                        "last_error")
                    .containsEntry("ordering_key", "customer-1")
                    .containsEntry("head_id", head)
                    .containsEntry("attempts", 5L));
  }

  @Test
  void parkedRetryMakesTheHeadPendingAndSkipMovesItToTheDeadRows() throws Exception {
    long retried = park("customer-1");
    long skipped = park("customer-2");
    UUID skippedMessage =
        (UUID) dsl.fetchValue("select message_id from " + OUTBOX + " where id = ?", skipped);

    Run refused = relayer("parked", "skip", "customer-2");
    assertThat(refused.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(refused.err()).contains("would move the parked head id=" + skipped);
    assertThat(statusOf(skipped)).isEqualTo("parked");

    Run retry = relayer("parked", "retry", "customer-1", "--yes");
    Run skip = relayer("parked", "skip", "customer-2", "--yes");
    Run again = relayer("parked", "skip", "customer-2", "--yes");

    assertThat(retry.exitCode()).as(retry.err()).isZero();
    assertThat(retry.err()).isEmpty();
    assertThat(retry.out().strip()).isEqualTo("retried the parked head of key customer-1");
    assertThat(statusOf(retried)).isEqualTo("pending");
    assertThat(skip.exitCode()).as(skip.err()).isZero();
    assertThat(skip.err()).isEmpty();
    assertThat(deadIds()).containsExactly(skipped);
    assertThat(dsl.fetchValue("select reason from " + DEAD + " where id = ?", skipped))
        .isEqualTo("operator");
    assertThat(deadMessageIds(List.of(skipped))).containsExactly(skippedMessage);
    assertThat(again.exitCode()).isEqualTo(RelayerCli.EXIT_FAILURE);
    assertThat(again.err().strip()).isEqualTo("relayer parked skip: key customer-2 is not parked");
  }

  @Test
  void parkedReleaseRetriesEveryHeadOfTheLaneOrOfAllLanes() throws Exception {
    long first = park("customer-1");
    long second = park("customer-2");
    int lane = StoreOperations.of(store).parkedKeys(dsl, null).get(0).lane();

    Run noScope = relayer("parked", "release", "--yes");
    Run both = relayer("parked", "release", "--all", "--lane", "0", "--yes");
    Run badLane = relayer("parked", "release", "--lane", "100000", "--yes");
    Run one = relayer("parked", "release", "--lane", Integer.toString(lane), "--yes");
    Run all = relayer("parked", "release", "--all", "--yes");

    assertThat(noScope.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(both.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(badLane.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(badLane.err()).contains("lane must be between 0 and");
    assertThat(one.exitCode()).as(one.err()).isZero();
    assertThat(one.out()).startsWith("released ");
    assertThat(all.exitCode()).as(all.err()).isZero();
    assertThat(statusOf(first)).isEqualTo("pending");
    assertThat(statusOf(second)).isEqualTo("pending");
    assertThat(StoreOperations.of(store).parkedKeys(dsl, null)).isEmpty();
  }

  @Test
  void parkedRetrySkipAndReleaseWriteAnAuditRowEachAndPrintJson() throws Exception {
    park("customer-1");
    long skipped = park("customer-2");
    park("customer-3");
    park("customer-4");

    Run retry = relayer("parked", "retry", "customer-1", "--operator", "carol", "--yes", "--json");
    Run skip = relayer("parked", "skip", "customer-2", "--operator", "carol", "--yes", "--json");
    Run release = relayer("parked", "release", "--all", "--operator", "dave", "--yes", "--json");

    assertThat(retry.exitCode()).as(retry.err()).isZero();
    assertThat(JsonReader.object(retry.out()))
        .containsOnlyKeys("operation", "operator", "key", "lane", "head_id", "message_id", "rows")
        .containsEntry("operation", "parked-retry")
        .containsEntry("operator", "carol")
        .containsEntry("key", "customer-1")
        .containsEntry("rows", 1L);
    assertThat(JsonReader.object(skip.out()))
        .containsEntry("operation", "parked-skip")
        .containsEntry("head_id", skipped);
    assertThat(JsonReader.object(release.out()))
        .containsOnlyKeys("operation", "operator", "lane", "released")
        .containsEntry("operation", "parked-release")
        .containsEntry("lane", JsonReader.NULL)
        .containsEntry("released", 2L);
    assertThat(auditRows())
        .containsExactly(
            "carol parked-retry 1 {\"key\": \"customer-1\"}",
            "carol parked-skip 1 {\"key\": \"customer-2\"}",
            "dave parked-release 2 {\"all\": true}");
  }

  /**
   * Runs the command on a pseudo-terminal (util-linux {@code script}), typing {@code answer}:
   * {@link System#console()} is then a terminal, and the command asks.
   */
  private Run onATerminal(String answer, String... args) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java, "-cp", System.getProperty("java.class.path"), RelayerCli.class.getName()));
    command.addAll(List.of(args));
    command.addAll(List.of("--url=" + url(), "--schema", "messaging", "--prefix", "orders_"));
    StringBuilder line = new StringBuilder();
    for (String arg : command) {
      line.append('\'').append(arg.replace("'", "'\\''")).append("' ");
    }
    Path out = Files.createTempFile("relayer-tty", ".txt");
    try {
      Process process =
          new ProcessBuilder("script", "-qec", line.toString(), "/dev/null")
              .redirectOutput(out.toFile())
              .redirectErrorStream(true)
              .start();
      // Typed once the prompt is up: the terminal keeps it until the command reads.
      process.getOutputStream().write((answer + "\n").getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();
      assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
      process.getOutputStream().close();
      return new Run(process.exitValue(), read(out), "");
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private static boolean scriptIsInstalled() {
    try {
      return new ProcessBuilder("script", "--version").start().waitFor() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void onATerminalReplayAsksAndActsOnlyOnYes() throws Exception {
    assumeTrue(scriptIsInstalled(), "util-linux script gives the command a terminal");
    List<Long> ids = buryRejected("InvoiceIssued", "billing", 2, "no exchange 'billing'");

    Run declined = onATerminal("n", "dead", "replay", "--type", "InvoiceIssued");

    assertThat(declined.out())
        .contains("replay 2 dead rows matching messageType=InvoiceIssued? [y/N]");
    assertThat(declined.exitCode()).as(declined.out()).isEqualTo(RelayerCli.EXIT_FAILURE);
    assertThat(deadIds()).containsExactlyElementsOf(ids);

    Run confirmed = onATerminal("y", "dead", "replay", "--type", "InvoiceIssued");

    assertThat(confirmed.exitCode()).as(confirmed.out()).isZero();
    assertThat(confirmed.out()).contains("replayed 2 dead rows");
    assertThat(deadIds()).isEmpty();
    assertThat(confirmed.out()).doesNotContain(password());
  }
}
