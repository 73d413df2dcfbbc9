package dev.relayer.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import dev.relayer.testkit.HeldSnapshot;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code relayer status} against a real PostgreSQL, run in process. */
class StatusCommandIT {

  private record Run(int exitCode, String out, String err) {}

  TestDatabase db;
  SchemaOptions schema;
  RelayerStore store;
  DSLContext dsl;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create();
    schema = SchemaOptions.of("messaging", "orders_");
    RelayerSchemaInstaller.applyScript(db.dataSource(), schema);
    store = RelayerStore.create(StoreOptions.of(schema));
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  private String url() {
    String url = db.jdbcUrl();
    String credentials = "user=" + URLEncoder.encode(db.user(), StandardCharsets.UTF_8);
    if (db.password() != null) {
      credentials += "&password=" + URLEncoder.encode(db.password(), StandardCharsets.UTF_8);
    }
    return url + (url.contains("?") ? "&" : "?") + credentials;
  }

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exitCode = RelayerCli.run(new PrintWriter(out), new PrintWriter(err), args);
    return new Run(exitCode, out.toString(), err.toString());
  }

  private Run status() {
    return run("status", "--url=" + url(), "--schema", "messaging", "--prefix", "orders_");
  }

  @Test
  void statusShowsTheSessionHoldingTheXminHorizonWithItsPidAndAge() throws Exception {
    try (HeldSnapshot pin =
        HeldSnapshot.take(db.connect(), "nightly-report", "messaging.orders_outbox")) {
      int pid = pin.pid();
      for (int i = 0; i < 3; i++) {
        store.enqueue(dsl, message());
      }

      Run run = status();

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.err()).isEmpty();
      String line =
          run.out()
              .lines()
              .filter(l -> l.contains("session pid=" + pid + " "))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no line for pid " + pid + ":\n" + run.out()));
      assertThat(line).contains("application_name='nightly-report'");
      assertThat(line).contains("state='idle in transaction'").contains("xact_start=");
      Matcher age = Pattern.compile("xmin_age=(\\d+)").matcher(line);
      assertThat(age.find()).isTrue();
      assertThat(Long.parseLong(age.group(1))).isGreaterThanOrEqualTo(3);
      assertThat(run.out()).contains("xmin horizon:     oldest xmin_age=");
    }
  }

  @Test
  void statusShowsDeadTuplesOfTheOutboxAfterDeletes() {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      messages.add(message());
    }
    store.enqueue(dsl, messages);
    assertThat(dsl.deleteFrom(DSL.table(DSL.name("messaging", "orders_outbox"))).execute())
        .isEqualTo(40);

    Pattern outboxLine =
        Pattern.compile("\"messaging\"\\.\"orders_outbox\" live=(\\d+) dead=(\\d+)");
    AtomicReference<Run> last = new AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              last.set(status());
              Matcher m = outboxLine.matcher(last.get().out());
              return m.find() && Long.parseLong(m.group(2)) >= 40;
            });
    Run run = last.get();
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("status:           healthy")
        .contains("\"messaging\".\"orders_inbox\" live=0 dead=0")
        .contains("\"messaging\".\"orders_outbox_dead\" live=0 dead=0");
  }

  @Test
  void statusOfAnotherPrefixWithoutTablesFailsWithOneLine() {
    Run run = run("status", "--url=" + url(), "--prefix", "missing_");

    assertThat(run.exitCode()).isEqualTo(RelayerCli.EXIT_FAILURE);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines()).hasSize(1);
    assertThat(run.err()).contains("relayer_outbox".replace("relayer_", "missing_"));
  }

  private static NewMessage message() {
    return NewMessage.builder()
        .transport("memory")
        .destination("orders")
        .messageType("OrderPlaced")
        .body(new byte[] {1})
        .build();
  }
}
