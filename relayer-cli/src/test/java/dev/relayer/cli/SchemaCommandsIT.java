package dev.relayer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.InboxOutcome;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.store.internal.ErrorFingerprint;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Passes;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * The schema's upgrade path and {@code relayer db verify} / {@code relayer db script --from}, each
 * command run as its own {@code java} process against a real PostgreSQL, on tables of an odd schema
 * and prefix. A "version-1 install" is made exactly as the first version of Relayer made one:
 * changeset 1 of the changelog alone, or the statements of step 1 of the script; a "version-2
 * install" likewise with changesets 1 and 2, or steps 1 and 2.
 */
class SchemaCommandsIT {

  static final SchemaOptions SCHEMA = SchemaOptions.of("messaging", "orders_");
  static final List<String> TABLES =
      List.of("orders_outbox", "orders_outbox_dead", "orders_inbox", "orders_leases");

  record Run(int exitCode, String out, String err) {}

  TestDatabase db;
  RelayerStore store;
  DSLContext dsl;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create();
    store = RelayerStore.create(StoreOptions.of(SCHEMA));
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  private String url() {
    String url = db.jdbcUrl();
    return url
        + (url.contains("?") ? "&" : "?")
        + "user="
        + URLEncoder.encode(db.user(), StandardCharsets.UTF_8)
        + (db.password() == null
            ? ""
            : "&password=" + URLEncoder.encode(db.password(), StandardCharsets.UTF_8));
  }

  /** {@code relayer args… --url … --schema messaging --prefix orders_} as a process. */
  private Run relayer(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--url=" + url(), "--schema", "messaging", "--prefix", "orders_"));
    return process(all);
  }

  private static Run process(List<String> args) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java, "-cp", System.getProperty("java.class.path"), RelayerCli.class.getName()));
    command.addAll(args);
    Path out = Files.createTempFile("relayer-out", ".txt");
    Path err = Files.createTempFile("relayer-err", ".txt");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().keySet().removeIf(k -> k.startsWith("PG") || k.equals("RELAYER_URL"));
      Process process = builder.start();
      process.getOutputStream().close();
      assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
      return new Run(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** Rows in each of the four tables of version 1, through the store as an application would. */
  private void fillVersionOneTables() {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(
          store.enqueue(
              dsl,
              NewMessage.builder()
                  .transport("rabbitmq")
                  .destination("billing")
                  .messageType("InvoiceIssued")
                  .orderingKey(i == 0 ? "customer-1" : null)
                  .header("traceparent", "00-ab-cd-01")
                  .body(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                  .build()));
    }
    // The last one went dead, as a rejecting broker would leave it.
    moveToDead(ids.get(2));
    assertThat(store.tryRecordInbox(dsl, "billing-consumer", UUID.randomUUID()))
        .isEqualTo(InboxOutcome.FIRST);
    Passes.of(store)
        .leases()
        .tryAcquire(dsl, new LeaseRequest("sweeper", "instance-1", Duration.ofMinutes(5)));
  }

  /** Moves outbox row {@code id} to the dead table, as a rejecting broker would leave it. */
  private void moveToDead(long id) {
    dsl.execute(
        "with moved as (delete from messaging.orders_outbox where id = ? returning *)"
            + " insert into messaging.orders_outbox_dead (id, message_id, transport, destination,"
            + " message_type, headers, body, created_at, ordering_key, lane, deliver_at,"
            + " tenant_id, attempts, last_error, failed_at, reason, error_fingerprint)"
            + " select id, message_id, transport, destination, message_type, headers, body,"
            + " created_at, ordering_key, lane, deliver_at, tenant_id, 1, 'no exchange', now(),"
            + " 'rejected', cast(? as text) from moved",
        id,
        ErrorFingerprint.of("no exchange"));
  }

  /**
   * Rows in each of the five tables of version 2: those of version 1, one dead row replayed (an
   * audit row) and another gone dead since.
   */
  private void fillVersionTwoTables() throws Exception {
    fillVersionOneTables();
    replayTheDeadRowAs("before-upgrade");
    moveToDead(dsl.fetchOne("select max(id) from messaging.orders_outbox").get(0, Long.class));
  }

  /** Every row of the four tables of version 1, as text, table by table. */
  private Map<String, List<String>> versionOneRows() {
    Map<String, List<String>> rows = new LinkedHashMap<>();
    for (String table : TABLES) {
      rows.put(
          table,
          dsl.fetch("select t::text from messaging." + table + " t order by 1")
              .getValues(0, String.class));
    }
    return rows;
  }

  private List<String> changelogRows() {
    return dsl.fetch(
            "select id || ' ' || md5sum || ' ' || dateexecuted || ' ' || orderexecuted"
                + " from public.databasechangelog order by orderexecuted")
        .getValues(0, String.class);
  }

  private long auditRows() {
    return dsl.fetchOne("select count(*) from messaging.orders_operations").get(0, Long.class);
  }

  private void replayTheDeadRowAs(String operator) throws Exception {
    long deadId = dsl.fetchOne("select id from messaging.orders_outbox_dead").get(0, Long.class);
    Run replay =
        relayer("dead", "replay", "--id", Long.toString(deadId), "--operator", operator, "--yes");
    assertThat(replay.exitCode()).as(replay.err()).isZero();
    assertThat(
            dsl.fetch("select operator, operation, rows from messaging.orders_operations")
                .map(r -> r.get(0) + " " + r.get(1) + " " + r.get(2)))
        .containsExactly(operator + " dead-replay 1");
  }

  @Test
  void aVersionOneInstallUpgradedByLiquibaseKeepsEveryRowAndRunningTheChangelogAgainIsANoOp()
      throws Exception {
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SCHEMA, 1);
    assertThat(changelogRows()).singleElement().asString().startsWith("relayer-1-create-tables");
    fillVersionOneTables();
    Map<String, List<String>> before = versionOneRows();
    Run old = relayer("db", "verify");

    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SCHEMA);
    List<String> applied = changelogRows();
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SCHEMA);

    assertThat(old.exitCode()).isEqualTo(RelayerCli.EXIT_DRIFT);
    assertThat(applied).hasSize(4);
    assertThat(applied.get(1)).startsWith("relayer-2-operations schema=messaging prefix=orders_ ");
    assertThat(applied.get(2))
        .startsWith("relayer-3-lane-key-index schema=messaging prefix=orders_ ");
    assertThat(applied.get(3))
        .startsWith("relayer-4-idempotency-keys schema=messaging prefix=orders_ ");
    assertThat(changelogRows()).isEqualTo(applied);
    assertThat(versionOneRows()).isEqualTo(before);
    assertThat(before.values()).allSatisfy(rows -> assertThat(rows).isNotEmpty());
    store.verifySchema(dsl);
    Run verify = relayer("db", "verify");
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
    assertThat(auditRows()).isZero();
    replayTheDeadRowAs("upgrade-check");
  }

  @Test
  void aVersionOneInstallUpgradedByTheScriptFromOneKeepsEveryRow() throws Exception {
    RelayerSchemaInstaller.applyVersion(db.dataSource(), SCHEMA, 1);
    fillVersionOneTables();
    Map<String, List<String>> before = versionOneRows();

    applyUpgradeScriptTwice(1);

    assertThat(versionOneRows()).isEqualTo(before);
    Run verify = relayer("db", "verify", "--json");
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
    Map<String, Object> report = JsonReader.object(verify.out());
    assertThat(report)
        .containsEntry("schema", "messaging")
        .containsEntry("prefix", "orders_")
        .containsEntry("expected_version", 4L)
        .containsEntry("installed_version", 4L)
        .containsEntry("compatible", true)
        .containsEntry("findings", List.of());
    replayTheDeadRowAs("script-check");
  }

  /** Every row of the five tables of version 2, as text, table by table. */
  private Map<String, List<String>> versionTwoRows() {
    Map<String, List<String>> rows = versionOneRows();
    rows.put(
        "orders_operations",
        dsl.fetch("select t::text from messaging.orders_operations t order by 1")
            .getValues(0, String.class));
    return rows;
  }

  private long laneKeyIndexes() {
    return dsl.fetchOne(
            "select count(*) from pg_indexes where schemaname = 'messaging'"
                + " and indexname = 'orders_outbox_lane_key_idx'")
        .get(0, Long.class);
  }

  @Test
  void aVersionTwoInstallUpgradedByLiquibaseKeepsEveryRowAndRunningTheChangelogAgainIsANoOp()
      throws Exception {
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SCHEMA, 2);
    assertThat(changelogRows()).hasSize(2);
    fillVersionTwoTables();
    Map<String, List<String>> before = versionTwoRows();
    Run old = relayer("db", "verify", "--json");

    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SCHEMA);
    List<String> applied = changelogRows();
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SCHEMA);

    assertThat(old.exitCode()).isEqualTo(RelayerCli.EXIT_DRIFT);
    assertThat(JsonReader.object(old.out())).containsEntry("installed_version", 2L);
    assertThat(applied).hasSize(4);
    assertThat(applied.get(2))
        .startsWith("relayer-3-lane-key-index schema=messaging prefix=orders_ ");
    assertThat(applied.get(3))
        .startsWith("relayer-4-idempotency-keys schema=messaging prefix=orders_ ");
    assertThat(changelogRows()).isEqualTo(applied);
    assertThat(versionTwoRows()).isEqualTo(before);
    assertThat(before.values()).allSatisfy(rows -> assertThat(rows).isNotEmpty());
    assertThat(laneKeyIndexes()).isEqualTo(1);
    store.verifySchema(dsl);
    Run verify = relayer("db", "verify");
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
  }

  @Test
  void aVersionTwoInstallUpgradedByTheScriptFromTwoKeepsEveryRow() throws Exception {
    RelayerSchemaInstaller.applyVersion(db.dataSource(), SCHEMA, 2);
    fillVersionTwoTables();
    Map<String, List<String>> before = versionTwoRows();

    applyUpgradeScriptTwice(2);

    assertThat(versionTwoRows()).isEqualTo(before);
    assertThat(laneKeyIndexes()).isEqualTo(1);
    Run verify = relayer("db", "verify", "--json");
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
    assertThat(JsonReader.object(verify.out()))
        .containsEntry("expected_version", 4L)
        .containsEntry("installed_version", 4L)
        .containsEntry("compatible", true);
    store.verifySchema(dsl);
  }

  /**
   * The upgrade the docs give for a large outbox: the index built beforehand without blocking
   * writes, under the step's name, turns changeset 3 into a no-op that is still recorded.
   */
  @Test
  void anIndexCreatedConcurrentlyBeforehandMakesChangesetThreeANoOp() throws Exception {
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SCHEMA, 2);
    fillVersionOneTables();
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      // CONCURRENTLY cannot run in a transaction block: autocommit, as psql runs it.
      connection.setAutoCommit(true);
      statement.execute(
          PostgreSqlOutboxSchema.stepStatements(SCHEMA, 3)
              .get(0)
              .replace("CREATE INDEX IF NOT EXISTS", "CREATE INDEX CONCURRENTLY"));
    }
    long oid =
        dsl.fetchOne("select 'messaging.orders_outbox_lane_key_idx'::regclass::oid::bigint")
            .get(0, Long.class);

    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SCHEMA);

    assertThat(changelogRows()).hasSize(4);
    assertThat(
            dsl.fetchOne("select 'messaging.orders_outbox_lane_key_idx'::regclass::oid::bigint")
                .get(0, Long.class))
        .as("the same index, not built again")
        .isEqualTo(oid);
    Run verify = relayer("db", "verify");
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
  }

  private long idempotencyKeyTables() {
    return dsl.fetchOne(
            "select count(*) from pg_tables where schemaname = 'messaging'"
                + " and tablename = 'orders_idempotency_keys'")
        .get(0, Long.class);
  }

  @Test
  void aVersionThreeInstallUpgradedByLiquibaseKeepsEveryRowAndRunningTheChangelogAgainIsANoOp()
      throws Exception {
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SCHEMA, 3);
    List<String> three = changelogRows();
    assertThat(three).hasSize(3);
    fillVersionTwoTables();
    Map<String, List<String>> before = versionTwoRows();
    Run old = relayer("db", "verify");
    Run oldJson = relayer("db", "verify", "--json");

    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SCHEMA);
    List<String> applied = changelogRows();
    RelayerSchemaInstaller.applyChangelog(db.dataSource(), SCHEMA);

    assertThat(old.exitCode()).isEqualTo(RelayerCli.EXIT_DRIFT);
    assertThat(old.out().lines())
        .containsExactly(
            "table orders_idempotency_keys missing: the install is at schema version 3;"
                + " upgrade it to version 4 with Relayer's changelog (changeset"
                + " relayer-4-idempotency-keys) or with"
                + " 'relayer db script --provider postgres --from 3'");
    assertThat(JsonReader.object(oldJson.out())).containsEntry("installed_version", 3L);
    assertThat(applied).hasSize(4);
    assertThat(applied.subList(0, 3)).as("changesets 1 to 3 not run again").isEqualTo(three);
    assertThat(applied.get(3))
        .startsWith("relayer-4-idempotency-keys schema=messaging prefix=orders_ ");
    assertThat(changelogRows()).isEqualTo(applied);
    assertThat(versionTwoRows()).isEqualTo(before);
    assertThat(before.values()).allSatisfy(rows -> assertThat(rows).isNotEmpty());
    assertThat(idempotencyKeyTables()).isEqualTo(1);
    store.verifySchema(dsl);
    Run verify = relayer("db", "verify");
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
  }

  @Test
  void aVersionThreeInstallUpgradedByTheScriptFromThreeKeepsEveryRow() throws Exception {
    RelayerSchemaInstaller.applyVersion(db.dataSource(), SCHEMA, 3);
    fillVersionTwoTables();
    Map<String, List<String>> before = versionTwoRows();

    applyUpgradeScriptTwice(3);

    assertThat(versionTwoRows()).isEqualTo(before);
    assertThat(idempotencyKeyTables()).isEqualTo(1);
    Run verify = relayer("db", "verify", "--json");
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
    assertThat(JsonReader.object(verify.out()))
        .containsEntry("expected_version", 4L)
        .containsEntry("installed_version", 4L)
        .containsEntry("compatible", true);
    store.verifySchema(dsl);
  }

  @Test
  void verifyReportsAVersionTwoInstallWithTheMissingIndexAndTheUpgradeToRun() throws Exception {
    RelayerSchemaInstaller.applyVersion(db.dataSource(), SCHEMA, 2);

    Run run = relayer("db", "verify");
    Run json = relayer("db", "verify", "--json");

    assertThat(run.exitCode()).isEqualTo(RelayerCli.EXIT_DRIFT);
    assertThat(run.out().lines())
        .containsExactly(
            "table orders_idempotency_keys missing: the install is at schema version 2;"
                + " upgrade it to version 4 with Relayer's changelog (changesets"
                + " relayer-3-lane-key-index and relayer-4-idempotency-keys) or with"
                + " 'relayer db script --provider postgres --from 2'",
            "index orders_outbox_lane_key_idx missing: the install is at schema version 2;"
                + " upgrade it to version 4 with Relayer's changelog (changesets"
                + " relayer-3-lane-key-index and relayer-4-idempotency-keys) or with"
                + " 'relayer db script --provider postgres --from 2'");
    Map<String, Object> report = JsonReader.object(json.out());
    assertThat(report)
        .containsEntry("expected_version", 4L)
        .containsEntry("installed_version", 2L)
        .containsEntry("compatible", false);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> findings = (List<Map<String, Object>>) report.get("findings");
    assertThat(findings)
        .hasSize(2)
        .last()
        .satisfies(
            f ->
                assertThat(f)
                    .containsEntry("kind", "index")
                    .containsEntry("name", "orders_outbox_lane_key_idx"));
  }

  @Test
  void verifyOnAGoodInstallExitsZeroWithOneLine() throws Exception {

    RelayerSchemaInstaller.applyScript(db.dataSource(), SCHEMA);

    Run run = relayer("db", "verify");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err()).isEmpty();
    assertThat(run.out().strip())
        .isEqualTo(
            "messaging.orders_: schema version 4, every table, column, constraint and index"
                + " present and compatible");
  }

  @Test
  void verifyAndStatusTakeASchemaAndPrefixNamedDoubleDashAsTheApiDoes() throws Exception {
    RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.of("--", "--"));

    Run verify = process(List.of("db", "verify", "--url=" + url(), "--schema=--", "--prefix=--"));
    Run status = process(List.of("status", "--url=" + url(), "--schema=--", "--prefix=--"));

    assertThat(verify.exitCode()).as(verify.err()).isZero();
    assertThat(verify.out().strip())
        .isEqualTo(
            "--.--: schema version 4, every table, column, constraint and index present and"
                + " compatible");
    assertThat(status.exitCode()).as(status.err()).isZero();
    assertThat(status.out()).contains("store:            --.--");
  }

  @Test
  void verifyNamesAMissingIndex() throws Exception {
    RelayerSchemaInstaller.applyScript(db.dataSource(), SCHEMA);
    dsl.execute("drop index messaging.orders_outbox_pending_idx");

    Run run = relayer("db", "verify");

    assertThat(run.exitCode()).isEqualTo(RelayerCli.EXIT_DRIFT);
    assertThat(run.err()).isEmpty();
    assertThat(run.out().lines()).containsExactly("index orders_outbox_pending_idx missing");
  }

  @Test
  void verifyNamesAMissingColumnAndNothingElseOfItsTable() throws Exception {
    RelayerSchemaInstaller.applyScript(db.dataSource(), SCHEMA);
    dsl.execute("alter table messaging.orders_outbox_dead drop column error_fingerprint");

    Run run = relayer("db", "verify");

    assertThat(run.exitCode()).isEqualTo(RelayerCli.EXIT_DRIFT);
    assertThat(run.out().lines())
        .containsExactly("column orders_outbox_dead.error_fingerprint missing");
  }

  @Test
  void verifyNamesAColumnOfAnotherTypeAndEveryOtherDifference() throws Exception {
    RelayerSchemaInstaller.applyScript(db.dataSource(), SCHEMA);
    dsl.execute("alter table messaging.orders_leases alter column owner type varchar(100)");
    dsl.execute("alter table messaging.orders_outbox drop constraint orders_outbox_attempts_check");
    dsl.execute("alter table messaging.orders_outbox alter column attempts drop default");
    dsl.execute("alter table messaging.orders_outbox alter column attempts type text");
    dsl.execute("alter table messaging.orders_inbox alter column processed_at drop not null");
    dsl.execute(
        "alter table messaging.orders_outbox_dead drop constraint orders_outbox_dead_lane_check,"
            + " add constraint orders_outbox_dead_lane_check check (lane >= -1)");

    Run run = relayer("db", "verify");
    Run json = relayer("db", "verify", "--json");

    assertThat(run.exitCode()).isEqualTo(RelayerCli.EXIT_DRIFT);
    assertThat(run.out().lines())
        .containsExactlyInAnyOrder(
            "column orders_outbox.attempts has type text, expected integer",
            "column orders_outbox.attempts has no default, expected default 0",
            "column orders_inbox.processed_at is nullable, expected NOT NULL",
            "column orders_leases.owner has type character varying(100), expected text",
            "constraint orders_outbox_attempts_check missing on orders_outbox",
            "constraint orders_outbox_dead_lane_check is CHECK ((lane >= '-1'::integer)),"
                + " expected CHECK ((lane >= 0))");
    assertThat(json.exitCode()).isEqualTo(RelayerCli.EXIT_DRIFT);
    Map<String, Object> report = JsonReader.object(json.out());
    assertThat(report).containsEntry("compatible", false).containsEntry("installed_version", 4L);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> findings = (List<Map<String, Object>>) report.get("findings");
    assertThat(findings).hasSize(6);
    assertThat(findings)
        .contains(
            Map.of(
                "kind",
                "column",
                "name",
                "orders_leases.owner",
                "problem",
                "column orders_leases.owner has type character varying(100), expected text"));
  }

  @Test
  void verifyReportsAVersionOneInstallWithTheUpgradeToRun() throws Exception {
    RelayerSchemaInstaller.applyVersion(db.dataSource(), SCHEMA, 1);

    Run run = relayer("db", "verify");
    Run json = relayer("db", "verify", "--json");

    assertThat(run.exitCode()).isEqualTo(RelayerCli.EXIT_DRIFT);
    assertThat(run.out().lines())
        .containsExactly(
            "table orders_operations missing: the install is at schema version 1; upgrade it to"
                + " version 4 with Relayer's changelog (changesets relayer-2-operations,"
                + " relayer-3-lane-key-index and relayer-4-idempotency-keys) or with"
                + " 'relayer db script --provider postgres --from 1'",
            "table orders_idempotency_keys missing: the install is at schema version 1; upgrade"
                + " it to version 4 with Relayer's changelog (changesets relayer-2-operations,"
                + " relayer-3-lane-key-index and relayer-4-idempotency-keys) or with"
                + " 'relayer db script --provider postgres --from 1'",
            "index orders_outbox_lane_key_idx missing: the install is at schema version 1;"
                + " upgrade it to version 4 with Relayer's changelog (changesets"
                + " relayer-2-operations, relayer-3-lane-key-index and relayer-4-idempotency-keys)"
                + " or with 'relayer db script --provider postgres --from 1'");
    assertThat(JsonReader.object(json.out()))
        .containsEntry("installed_version", 1L)
        .containsEntry("compatible", false);
  }

  @Test
  void verifyWithoutTablesNamesTheMissingSchemaOrTables() throws Exception {
    Run noSchema = relayer("db", "verify");
    dsl.execute("create schema messaging");
    Run noTables = relayer("db", "verify", "--json");

    assertThat(noSchema.exitCode()).isEqualTo(RelayerCli.EXIT_DRIFT);
    assertThat(noSchema.out().lines())
        .containsExactly("schema messaging missing (no Relayer tables installed)");
    assertThat(noTables.exitCode()).isEqualTo(RelayerCli.EXIT_DRIFT);
    Map<String, Object> report = JsonReader.object(noTables.out());
    assertThat(report.get("installed_version")).isSameAs(JsonReader.NULL);
    assertThat((List<?>) report.get("findings")).hasSize(6);
  }

  @Test
  void verifyThatCannotConnectFailsWithExitOneAndOneLine() throws Exception {
    Run run =
        process(
            List.of(
                "db",
                "verify",
                "--url=jdbc:postgresql://127.0.0.1:1/app?user=a&password=hidden&connectTimeout=2"));
    Run noDatabase = process(List.of("db", "verify"));

    assertThat(run.exitCode()).isEqualTo(RelayerCli.EXIT_FAILURE);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines()).hasSize(1);
    assertThat(run.err()).startsWith("relayer db verify: cannot verify public.relayer_ at ");
    assertThat(run.err()).doesNotContain("hidden");
    assertThat(noDatabase.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
  }

  /**
   * Prints the upgrade from schema version {@code from} for schema {@code messaging} and prefix
   * {@code orders_} with {@code relayer db script}, and runs it twice, each time in a transaction
   * of its own: the second run must change nothing.
   */
  private void applyUpgradeScriptTwice(int from) throws Exception {
    Run script =
        process(
            List.of(
                "db",
                "script",
                "--provider",
                "postgres",
                "--schema",
                "messaging",
                "--prefix",
                "orders_",
                "--from",
                Integer.toString(from)));
    assertThat(script.exitCode()).as(script.err()).isZero();
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      connection.setAutoCommit(false);
      statement.execute(script.out());
      connection.commit();
      statement.execute(script.out());
      connection.commit();
    }
  }
}
