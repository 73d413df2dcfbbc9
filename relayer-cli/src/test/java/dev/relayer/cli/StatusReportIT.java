package dev.relayer.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.store.internal.ErrorFingerprint;
import dev.relayer.store.pass.LeaseOutcome;
import dev.relayer.store.pass.LeaseRequest;
import dev.relayer.store.pass.Passes;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code relayer status}, run as its own {@code java} process against a real PostgreSQL, over an
 * outbox with rows of several transports, destinations and tenants in every state (eligible, in
 * flight, retrying, scheduled, parked), dead rows, and leases held, expired and of a lane instance.
 */
class StatusReportIT {

  static final String SECRET = OperatorCommandsIT.SECRET;
  static final String OUTBOX = OperatorCommandsIT.OUTBOX;
  static final String DEAD = OperatorCommandsIT.DEAD;
  static final String LEASES = "\"messaging\".\"orders_leases\"";

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

  private String password() {
    return db.password() == null ? SECRET : db.password();
  }

  private String url() {
    String url = db.jdbcUrl();
    return url
        + (url.contains("?") ? "&" : "?")
        + "user="
        + URLEncoder.encode(db.user(), StandardCharsets.UTF_8)
        + "&password="
        + URLEncoder.encode(password(), StandardCharsets.UTF_8);
  }

  /** {@code relayer status args… --url … --schema messaging --prefix orders_} as a process. */
  private Run status(String... args) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                RelayerCli.class.getName(),
                "status"));
    command.addAll(List.of(args));
    command.addAll(List.of("--url=" + url(), "--schema", "messaging", "--prefix", "orders_"));
    Path out = Files.createTempFile("relayer-out", ".txt");
    Path err = Files.createTempFile("relayer-err", ".txt");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().keySet().removeIf(k -> k.startsWith("PG") || k.equals("RELAYER_URL"));
      Process process = builder.start();
      process.getOutputStream().close();
      assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
      Run run = new Run(process.exitValue(), read(out), read(err));
      assertThat(run.out()).doesNotContain(password());
      assertThat(run.err()).doesNotContain(password());
      return run;
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  private static String read(Path path) throws IOException {
    return Files.readString(path, StandardCharsets.UTF_8);
  }

  private static NewMessage.Builder message(String transport, String destination, String tenant) {
    NewMessage.Builder b =
        NewMessage.builder()
            .transport(transport)
            .destination(destination)
            .messageType("OrderPlaced")
            .body(new byte[] {1});
    return tenant == null ? b : b.tenantId(tenant);
  }

  private List<Long> enqueue(int count, NewMessage.Builder builder) {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      messages.add(builder.build());
    }
    return store.enqueue(dsl, messages);
  }

  /**
   * The outbox and dead table this class reads:
   *
   * <pre>
   * transport  destination  tenant  eligible  in flight  retrying  scheduled  parked
   * rabbitmq   billing      acme    4         1          2         -          -
   * rabbitmq   billing      globex  2         -          -         1          -
   * rabbitmq   orders       -       1         -          -         -          1 (+1 behind it)
   * kafka      invoices     acme    3         -          -         -          -
   * </pre>
   *
   * plus 3 + 1 dead rows under two fingerprints, the sweeper lease held by {@code host-a}, lane 3
   * and the lane heartbeat held by {@code host-b}, and an expired cleanup lease of {@code host-c}.
   */
  private void fill() {
    Instant now = Instant.now();
    enqueue(4, message("rabbitmq", "billing", "acme"));
    List<Long> inFlight = enqueue(1, message("rabbitmq", "billing", "acme"));
    List<Long> retrying = enqueue(2, message("rabbitmq", "billing", "acme"));
    enqueue(2, message("rabbitmq", "billing", "globex"));
    enqueue(1, message("rabbitmq", "billing", "globex").deliverAt(now.plus(Duration.ofHours(2))));
    enqueue(1, message("rabbitmq", "orders", null));
    List<Long> ordered = enqueue(2, message("rabbitmq", "orders", null).orderingKey("customer-7"));
    enqueue(3, message("kafka", "invoices", "acme"));
    dsl.execute(
        "update "
            + OUTBOX
            + " set claim_token = gen_random_uuid(), claim_expires_at = now() + interval '1 hour',"
            + " attempts = 1 where id = ?",
        inFlight.get(0));
    dsl.execute(
        "update "
            + OUTBOX
            + " set claim_token = gen_random_uuid(), claim_expires_at = now() + interval '1 hour',"
            + " attempts = 2, last_error = 'connection reset' where id = any(?)",
        (Object) retrying.toArray(Long[]::new));
    dsl.execute(
        "update "
            + OUTBOX
            + " set status = 'parked', parked_at = now(), attempts = 5,"
            + " last_error = 'broker said no' where id = ?",
        ordered.get(0));
    bury("billing", 3, "NOT_FOUND - no exchange 'billing'");
    bury("orders", 1, "PRECONDITION_FAILED - message too large");

    LeaseOutcome sweeper =
        dsl.transactionResult(
            tx ->
                Passes.of(store)
                    .leases()
                    .tryAcquire(
                        tx.dsl(), new LeaseRequest("sweeper", "host-a/41", Duration.ofMinutes(5))));
    assertThat(sweeper).isInstanceOf(LeaseOutcome.Acquired.class);
    dsl.execute(
        "insert into "
            + LEASES
            + " (name, owner, expires_at) values"
            + " ('lane/3', 'host-b/42', now() + interval '5 minutes'),"
            + " ('instance/host-b/42', 'host-b/42', now() + interval '4 minutes'),"
            + " ('cleanup', 'host-c/43', now() - interval '1 minute')");
  }

  private void bury(String destination, int count, String error) {
    List<Long> ids = enqueue(count, message("rabbitmq", destination, null));
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
            + " created_at, ordering_key, lane, deliver_at, tenant_id, 1, cast(? as text), now(),"
            + " 'rejected', cast(? as text) from moved",
        ids.toArray(Long[]::new),
        error,
        ErrorFingerprint.of(error));
  }

  private long outboxRows() {
    return dsl.fetchCount(DSL.table(DSL.name("messaging", "orders_outbox")));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return (Map<String, Object>) value;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Object value) {
    return (List<Map<String, Object>>) value;
  }

  private static Map<String, Object> group(Map<String, Object> backlog, String key, Object value) {
    return list(backlog.get("groups")).stream()
        .filter(g -> value.equals(g.get(key)))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no group " + key + "=" + value + ": " + backlog));
  }

  @Test
  void statusPrintsTheBacklogByTransportAndDestinationWithEveryStateParkedDeadAndLeases()
      throws Exception {
    fill();

    Run run = status();

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err()).isEmpty();
    List<String> lines = run.out().lines().toList();
    // The parked key degrades the status (and is named): every other rule is within bounds.
    assertThat(lines).contains("store:            messaging.orders_", "status:           degraded");
    assertThat(lines)
        .filteredOn(l -> l.startsWith("  reason:"))
        .singleElement()
        .satisfies(l -> assertThat(l).contains("parkedKeys=1").contains("key='customer-7'"));
    assertThat(run.out())
        .contains("eligible:         11 (oldest PT")
        .contains("retrying:         2 (oldest PT")
        .contains("scheduled:        1\n")
        .contains("parked keys:      1 (oldest PT")
        .contains("dead rows:        4 (last hour 4)")
        .contains("backlog by transport and destination (largest 20 groups; ages since due):");
    int header =
        lines.indexOf(
            lines.stream().filter(l -> l.startsWith("TRANSPORT")).findFirst().orElseThrow());
    // Most rows first; groups of equal size by transport, then destination.
    assertThat(lines.get(header).split(" {2,}"))
        .containsExactly(
            "TRANSPORT",
            "DESTINATION",
            "ROWS",
            "ELIGIBLE",
            "IN FLIGHT",
            "RETRYING",
            "SCHEDULED",
            "PARKED",
            "OLDEST PENDING",
            "OLDEST ELIGIBLE");
    // rabbitmq billing: 4 + 2 eligible, 1 in flight, 2 retrying, 1 scheduled.
    assertThat(cells(lines.get(header + 1)))
        .startsWith("rabbitmq", "billing", "10", "6", "1", "2", "1", "0");
    assertThat(cells(lines.get(header + 2)))
        .startsWith("kafka", "invoices", "3", "3", "0", "0", "0", "0");
    assertThat(cells(lines.get(header + 3)))
        .startsWith("rabbitmq", "orders", "3", "2", "0", "0", "0", "1");
    assertThat(cells(lines.get(header + 4))).startsWith("total", "16", "11", "1", "2", "1", "1");
    assertThat(run.out())
        .contains("parked keys (longest parked first, at most 20):")
        .containsPattern("\ncustomer-7 +\\d+ +\\d+ +5 +\\S+ +broker said no\n")
        .contains("dead rows by fingerprint (most rows first, at most 20):")
        .contains(ErrorFingerprint.of("NOT_FOUND - no exchange 'billing'"))
        .containsPattern("\n\\S+ +3 +\\S+ +\\S+ +billing +NOT_FOUND - no exchange 'billing'\n")
        .contains("leases (database clock):")
        .containsPattern("\nsweeper +host-a/41 +\\S+ +yes\n")
        .containsPattern("\ncleanup +host-c/43 +\\S+ +no\n")
        .contains("live instances (owners of unexpired leases):")
        .containsPattern("\nhost-a/41 +- +\\S+ +sweeper\n")
        .containsPattern("\nhost-b/42 +\\S+ +\\S+ +instance/host-b/42,lane/3\n")
        .contains("\"messaging\".\"orders_outbox\" live=")
        .contains("xmin horizon:");
    assertThat(run.out()).doesNotContain("\nhost-c/43");
  }

  private static List<String> cells(String line) {
    return List.of(line.trim().split(" {2,}"));
  }

  @Test
  void statusJsonHasTheDocumentedFieldsAndItsBreakdownAddsUpToTheOutbox() throws Exception {
    fill();

    Run run = status("--json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().lines()).hasSize(1);
    Map<String, Object> doc = JsonReader.object(run.out());
    assertThat(doc)
        .containsOnlyKeys(
            "store",
            "at",
            "status",
            "reasons",
            "eligible",
            "oldest_eligible_age_seconds",
            "oldest_pending_age_seconds",
            "retrying",
            "oldest_retrying_age_seconds",
            "scheduled",
            "never_handed_off",
            "row_limit_reached",
            "parked_keys",
            "oldest_parked_age_seconds",
            "dead_rows",
            "dead_rows_last_hour",
            "backlog",
            "parked",
            "dead_groups",
            "dead_rows_in_other_groups",
            "leases",
            "instances",
            "tables",
            "xmin_horizon")
        .containsEntry("store", "messaging.orders_")
        .containsEntry("status", "degraded")
        .containsEntry("eligible", 11L)
        .containsEntry("retrying", 2L)
        .containsEntry("scheduled", 1L)
        .containsEntry("parked_keys", 1L)
        .containsEntry("dead_rows", 4L)
        .containsEntry("dead_rows_in_other_groups", 0L);
    assertThat((List<?>) doc.get("reasons"))
        .singleElement()
        .satisfies(r -> assertThat((String) r).contains("parkedKeys=1").contains("customer-7"));
    Instant.parse((String) doc.get("at"));
    assertThat((Double) doc.get("oldest_pending_age_seconds")).isGreaterThanOrEqualTo(0.0);

    Map<String, Object> backlog = map(doc.get("backlog"));
    assertThat(backlog).containsEntry("by", "destination").containsEntry("limit", 20L);
    Map<String, Object> billing = group(backlog, "destination", "billing");
    assertThat(billing)
        .containsOnlyKeys(
            "transport",
            "destination",
            "rows",
            "eligible",
            "in_flight",
            "retrying",
            "scheduled",
            "parked",
            "oldest_pending_age_seconds",
            "oldest_eligible_age_seconds")
        .containsEntry("transport", "rabbitmq")
        .containsEntry("rows", 10L)
        .containsEntry("eligible", 6L)
        .containsEntry("in_flight", 1L)
        .containsEntry("retrying", 2L)
        .containsEntry("scheduled", 1L)
        .containsEntry("parked", 0L);
    assertThat(group(backlog, "destination", "orders")).containsEntry("parked", 1L);
    assertThat(map(backlog.get("others"))).containsEntry("groups", 0L).containsEntry("rows", 0L);
    assertThat(map(backlog.get("total")))
        .containsEntry("rows", outboxRows())
        .containsEntry("eligible", 11L)
        .containsEntry("in_flight", 1L)
        .containsEntry("retrying", 2L)
        .containsEntry("scheduled", 1L)
        .containsEntry("parked", 1L);

    assertThat(list(doc.get("parked")))
        .singleElement()
        .satisfies(
            p ->
                assertThat(p)
                    .containsEntry("ordering_key", "customer-7")
                    .containsEntry("attempts", 5L)
                    .containsEntry("last_error", "broker said no"));
    assertThat(list(doc.get("dead_groups")))
        .extracting(g -> g.get("count"), g -> g.get("destinations"))
        .containsExactly(tuple(3L, List.of("billing")), tuple(1L, List.of("orders")));
    assertThat(list(doc.get("leases")))
        .extracting(l -> l.get("name"), l -> l.get("owner"), l -> l.get("live"))
        .containsExactly(
            tuple("cleanup", "host-c/43", false),
            tuple("instance/host-b/42", "host-b/42", true),
            tuple("lane/3", "host-b/42", true),
            tuple("sweeper", "host-a/41", true));
    List<Map<String, Object>> instances = list(doc.get("instances"));
    assertThat(instances).extracting(i -> i.get("owner")).containsExactly("host-a/41", "host-b/42");
    assertThat(instances.get(0)).containsEntry("heartbeat_expires_at", JsonReader.NULL);
    assertThat(instances.get(1))
        .containsEntry("leases", List.of("instance/host-b/42", "lane/3"))
        .containsKeys("heartbeat_expires_at", "expires_at");
    Instant.parse((String) instances.get(1).get("heartbeat_expires_at"));
    assertThat(list(doc.get("tables")))
        .extracting(t -> t.get("table"))
        .containsExactly("outbox", "outbox_dead", "inbox", "leases");
    assertThat(map(doc.get("xmin_horizon")))
        .containsKeys("oldest_xmin_age", "holders", "hidden_sessions");
  }

  @Test
  void statusByTenantBreaksTheBacklogDownByTenantAndItsGroupsAddUpToTheWholeBacklog()
      throws Exception {
    fill();

    Run run = status("--by", "tenant", "--json");
    Run table = status("--by", "tenant");

    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<String, Object> doc = JsonReader.object(run.out());
    Map<String, Object> backlog = map(doc.get("backlog"));
    assertThat(backlog).containsEntry("by", "tenant");
    List<Map<String, Object>> groups = list(backlog.get("groups"));
    assertThat(groups)
        .extracting(g -> g.get("tenant_id"), g -> g.get("rows"), g -> g.get("eligible"))
        .containsExactly(
            tuple("acme", 10L, 7L), tuple("globex", 3L, 2L), tuple(JsonReader.NULL, 3L, 2L));
    assertThat(groups.get(0)).doesNotContainKeys("transport", "destination");
    long rows = groups.stream().mapToLong(g -> (Long) g.get("rows")).sum();
    long eligible = groups.stream().mapToLong(g -> (Long) g.get("eligible")).sum();
    assertThat(rows).isEqualTo(outboxRows()).isEqualTo(map(backlog.get("total")).get("rows"));
    assertThat(eligible).isEqualTo(doc.get("eligible"));
    assertThat(table.exitCode()).as(table.err()).isZero();
    assertThat(table.out())
        .contains("backlog by tenant (largest 20 groups; ages since due):")
        .containsPattern("\n\\(none\\) +3 +2 ");
  }

  @Test
  void statusWithALimitListsTheLargestGroupsAndSumsTheRest() throws Exception {
    fill();

    Run run = status("--limit", "1", "--json");
    Run table = status("--limit", "1", "--by", "transport");

    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<String, Object> doc = JsonReader.object(run.out());
    Map<String, Object> backlog = map(doc.get("backlog"));
    assertThat(list(backlog.get("groups")))
        .singleElement()
        .satisfies(
            g -> assertThat(g).containsEntry("destination", "billing").containsEntry("rows", 10L));
    assertThat(map(backlog.get("others")))
        .containsEntry("groups", 2L)
        .containsEntry("rows", 6L)
        .containsEntry("eligible", 5L)
        .containsEntry("parked", 1L);
    assertThat(map(backlog.get("total"))).containsEntry("rows", 16L);
    assertThat(list(doc.get("dead_groups"))).hasSize(1);
    assertThat(doc).containsEntry("dead_rows_in_other_groups", 1L);
    assertThat(table.exitCode()).as(table.err()).isZero();
    assertThat(table.out())
        .contains("backlog by transport (largest 1 groups; ages since due):")
        .containsPattern("\nrabbitmq +13 +8 +1 +2 +1 +1 ")
        .containsPattern("\n1 more +3 +3 +0 +0 +0 +0 ")
        .containsPattern("\ntotal +16 +11 +1 +2 +1 +1 ")
        .contains("(1 more dead rows under other fingerprints: relayer dead groups)");
  }

  @Test
  void statusOfAnEmptyStoreSaysNoneForEachList() throws Exception {
    Run run = status();

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .containsPattern("\ntotal +0 +0 +0 +0 +0 +0 +- +-\n")
        .contains("\nparked keys: none\n")
        .contains("\ndead rows by fingerprint: none\n")
        .contains("\nleases: none\n")
        .contains("\nlive instances: none hold a lease\n");
  }

  @Test
  void statusOverMoreDueRowsThanTheHealthRowLimitSaysItsCountsAreLowerBounds() throws Exception {
    dsl.execute(
        "INSERT INTO "
            + OUTBOX
            + " (message_id, transport, destination, message_type, body)"
            + " SELECT gen_random_uuid(), 'rabbitmq', 'billing', 'InvoiceDue', '\\x00'"
            + " FROM generate_series(1, 10001)");

    Run text = status();
    Run json = status("--json");

    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("\nstatus:           unhealthy\n")
        .contains("\neligible:         at least 10000 (oldest ")
        .contains("the read stopped at rowLimit=10000 due rows")
        .containsPattern("\ntotal +10001 +10001 ");
    Map<String, Object> doc = JsonReader.object(json.out());
    assertThat(doc)
        .containsEntry("row_limit_reached", true)
        .containsEntry("eligible", 10000L)
        .containsEntry("status", "unhealthy");
  }

  @Test
  void aBadByOrLimitIsAUsageErrorNamingTheOption() throws Exception {
    Run by = status("--by", "region");
    Run limit = status("--limit", "0");

    assertThat(by.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(by.out()).isEmpty();
    assertThat(by.err().strip())
        .isEqualTo(
            "relayer status: --by must be transport, destination or tenant, was 'region'"
                + " (see 'relayer status --help')");
    assertThat(limit.exitCode()).isEqualTo(RelayerCli.EXIT_USAGE);
    assertThat(limit.err().lines()).hasSize(1);
    assertThat(limit.err()).contains("--limit must be between 1 and 1000, was 0");
  }
}
