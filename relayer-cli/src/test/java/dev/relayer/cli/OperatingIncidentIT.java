package dev.relayer.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.relayer.dispatch.Relayer;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The worked incident of {@code docs/operating.md}, for real: a running {@link Relayer} publishes
 * {@code InvoiceIssued} messages to a RabbitMQ exchange ({@value #EXCHANGE}) whose only queue is
 * bound for another routing key; the broker returns them as unroutable, the rows go dead; the
 * operator runs {@code relayer status} and {@code relayer dead groups}, binds the queue for the
 * invoices' routing key (the fix), and replays the group with {@code relayer dead replay}; the
 * running Relayer delivers the rows again with their message ids. Every command runs as its own
 * {@code java} process, reading the database from {@code RELAYER_URL} as the page shows. The test
 * then checks the page: its incident runs exactly these commands, in this order, and every output
 * line it shows (other than {@code ...}) is a line the command printed, instants and ages aside.
 *
 * <p>The transcript of the run is written to {@code target/incident-transcript.txt}.
 */
class OperatingIncidentIT {

  static final String EXCHANGE = "invoices";
  static final String QUEUE = "invoices-accounting";
  static final String OWNER = "billing-service-1";

  /** The page that shows the incident, relative to this module. */
  static final Path PAGE = Path.of("..", "docs", "operating.md");

  /** The heading of the page's incident; its fenced blocks end at the next heading. */
  static final String HEADING = "## A worked incident";

  record Run(int exitCode, String out, String err) {}

  record Step(String command, Run run) {}

  TestDatabase db;
  DSLContext dsl;
  Connection rabbit;
  Channel admin;
  final List<Step> transcript = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    ConnectionFactory factory = new ConnectionFactory();
    // An empty vhost ("amqp://host:5672/") is the default one, "/", as the transport reads it.
    String uri = amqpUri();
    factory.setUri(uri.endsWith("/") ? uri + "%2F" : uri);
    rabbit = factory.newConnection("relayer-incident-admin");
    admin = rabbit.createChannel();
    deleteTopology();
    // The topology before the incident: the accounting queue takes created invoices only.
    admin.exchangeDeclare(EXCHANGE, "topic", true);
    admin.queueDeclare(QUEUE, true, false, false, null);
    admin.queueBind(QUEUE, EXCHANGE, "invoice.created");
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      if (admin != null) {
        deleteTopology();
        rabbit.close();
      }
    } finally {
      db.close();
    }
  }

  private void deleteTopology() throws IOException {
    admin.queueDelete(QUEUE);
    admin.exchangeDelete(EXCHANGE);
  }

  private static String amqpUri() {
    String uri = System.getenv("RELAYER_RABBITMQ_URI");
    return uri == null || uri.isBlank() ? "amqp://guest:guest@127.0.0.1:5672/" : uri.trim();
  }

  private String url() {
    String url = db.jdbcUrl();
    String credentials = "user=" + URLEncoder.encode(db.user(), UTF_8);
    if (db.password() != null) {
      credentials += "&password=" + URLEncoder.encode(db.password(), UTF_8);
    }
    return url + (url.contains("?") ? "&" : "?") + credentials;
  }

  /** Runs {@code relayer <command>} as a process with {@code RELAYER_URL} set; records it. */
  private Run relayer(String command) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> args =
        new ArrayList<>(
            List.of(
                java, "-cp", System.getProperty("java.class.path"), RelayerCli.class.getName()));
    args.addAll(List.of(command.split(" ")));
    Path out = Files.createTempFile("relayer-out", ".txt");
    Path err = Files.createTempFile("relayer-err", ".txt");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(args).redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().keySet().removeIf(k -> k.startsWith("PG"));
      builder.environment().put(ConnectionOptions.URL_VARIABLE, url());
      Process process = builder.start();
      process.getOutputStream().close();
      assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
      Run run =
          new Run(process.exitValue(), Files.readString(out, UTF_8), Files.readString(err, UTF_8));
      transcript.add(new Step("relayer " + command, run));
      assertThat(run.exitCode()).as("relayer %s: %s", command, run.err()).isZero();
      assertThat(run.err()).as("relayer %s", command).isEmpty();
      return run;
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  private long dead() {
    return dsl.fetchCount(DSL.table(DSL.name("public", "relayer_outbox_dead")));
  }

  @Test
  void aRejectedMessageTypeGoesDeadAndIsReplayedAfterTheFixWithItsMessageIds() throws Exception {
    List<UUID> messageIds = List.of(UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID());
    try (Relayer relayer =
        Relayer.builder(db.dataSource())
            .owner(OWNER)
            .transport(RabbitMqTransport.builder().uri(amqpUri()).build())
            .withoutLanes()
            .build()) {
      relayer.start();
      for (UUID id : messageIds) {
        relayer
            .dsl()
            .transaction(
                tx ->
                    relayer
                        .store()
                        .enqueue(
                            tx.dsl(),
                            NewMessage.builder()
                                .messageId(id)
                                .transport("rabbitmq")
                                .destination(EXCHANGE + "/invoice.issued")
                                .messageType("InvoiceIssued")
                                .body("{\"invoice\":1}".getBytes(UTF_8))
                                .build()));
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> dead() == 3);

      Run status = relayer("status");
      assertThat(status.out())
          .contains("dead rows:        3 (last hour 3)")
          .contains("no queue is bound for it");
      Run groups = relayer("dead groups");
      Matcher group = Pattern.compile("\\n([0-9a-f]+) +3 ").matcher(groups.out());
      assertThat(group.find()).as(groups.out()).isTrue();
      String fingerprint = group.group(1);

      // The fix: bind the accounting queue for every invoice routing key.
      admin.queueBind(QUEUE, EXCHANGE, "invoice.*");

      Run dryRun = relayer("dead replay --fingerprint " + fingerprint + " --dry-run");
      assertThat(dryRun.out()).startsWith("would replay 3 dead rows");
      assertThat(dead()).isEqualTo(3);
      Run replay = relayer("dead replay --fingerprint " + fingerprint + " --yes");
      assertThat(replay.out()).contains("replayed 3 dead rows");
      assertThat(dead()).isZero();

      // The running Relayer's sweeper sends the replayed rows, with their message ids.
      Set<UUID> received = new HashSet<>();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                GetResponse message = admin.basicGet(QUEUE, true);
                if (message != null) {
                  received.add(UUID.fromString(message.getProps().getMessageId()));
                }
                return received.size() == messageIds.size();
              });
      assertThat(received).containsExactlyInAnyOrderElementsOf(messageIds);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> dsl.fetchCount(DSL.table(DSL.name("public", "relayer_outbox"))) == 0);
      Run after = relayer("status");
      assertThat(after.out())
          .contains("dead rows:        0 (last hour 0)")
          .contains("dead rows by fingerprint: none");
    } finally {
      writeTranscript();
    }
    assertTheReadmeShowsThisIncident();
  }

  private void writeTranscript() throws IOException {
    StringBuilder text = new StringBuilder();
    for (Step step : transcript) {
      text.append("$ ").append(step.command()).append('\n').append(step.run().out());
    }
    Path target = Path.of("target");
    if (Files.isDirectory(target)) {
      Files.writeString(target.resolve("incident-transcript.txt"), text, UTF_8);
    }
  }

  /** A page's output line or a printed line, with instants, ages and runs of spaces made alike. */
  static String shape(String line) {
    return line.replaceAll("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z", "<instant>")
        .replaceAll("\\bPT[0-9.HMS]+", "<age>")
        .replaceAll("\\s+", " ")
        .strip();
  }

  /** The page's incident: its commands, each with the output lines it shows. */
  static Map<String, List<String>> readmeIncident(List<String> order) throws IOException {
    List<String> lines = Files.readAllLines(PAGE, UTF_8);
    int start = lines.indexOf(HEADING);
    assertThat(start).as("%s heading %s", PAGE, HEADING).isNotNegative();
    Map<String, List<String>> shown = new java.util.LinkedHashMap<>();
    boolean fenced = false;
    List<String> current = null;
    for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("#"); i++) {
      String line = lines.get(i);
      if (line.startsWith("```")) {
        fenced = !fenced;
        current = null;
      } else if (fenced && line.startsWith("$ ")) {
        current = null;
        if (line.startsWith("$ relayer ")) {
          String command = line.substring(2).strip();
          order.add(command);
          current = new ArrayList<>();
          shown.put(command + "#" + order.size(), current);
        }
      } else if (fenced && current != null) {
        current.add(line);
      }
    }
    return shown;
  }

  private void assertTheReadmeShowsThisIncident() throws IOException {
    List<String> commands = new ArrayList<>();
    Map<String, List<String>> shown = readmeIncident(commands);
    assertThat(commands)
        .as("the incident commands of %s", PAGE)
        .containsExactlyElementsOf(transcript.stream().map(Step::command).toList());
    int n = 0;
    for (Map.Entry<String, List<String>> entry : shown.entrySet()) {
      Step step = transcript.get(n++);
      List<String> printed = step.run().out().lines().map(OperatingIncidentIT::shape).toList();
      int at = 0;
      for (String expected : entry.getValue()) {
        if (expected.strip().equals("...")) {
          continue;
        }
        String want = shape(expected);
        int found = printed.subList(at, printed.size()).indexOf(want);
        assertThat(found)
            .as(
                "Page line under '$ %s' not printed (in order):%n  %s%nprinted:%n%s",
                step.command(), expected, step.run().out())
            .isNotNegative();
        at += found + 1;
      }
    }
  }
}
