package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.pass.ClaimedMessage;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A message whose send halts the JVM (the OOM killer, a native crash, a pod killed mid-send), on
 * each path: real child processes die in {@code Runtime.halt} inside the transport's {@code send},
 * and new ones are started until the message has run out of attempts. See {@link PoisonSenderMain}.
 */
class PoisonMessageIT {

  private static final int MAX_ATTEMPTS = 3;

  private TestDatabase db;
  private DSLContext dsl;
  private Path sink;

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    sink = Files.createTempFile("relayer-poison-sink", ".log");
  }

  @AfterEach
  void tearDown() throws Exception {
    Files.deleteIfExists(sink);
    db.close();
  }

  @Test
  void aMessageThatHaltsDirectDispatchSpendsAnAttemptPerCrashAndEndsDeadWhileItsBatchMatesGoOut()
      throws Exception {
    CliProcess direct = child("direct", null);
    assertThat(direct.exitCode()).as("died sending: %s", direct.err()).isEqualTo(137);
    // The hand-off may reach the workers in more than one claim; the one that held the poison
    // message was committed, marked, before its send.
    assertThat(
            dsl.fetch("select message_type, last_error from relayer_outbox where attempts > 0")
                .map(r -> r.get(0, String.class) + " " + r.get(1, String.class)))
        .as("direct dispatch committed its claim before it sent")
        .contains(PoisonSenderMain.POISON + " " + ClaimedMessage.IN_FLIGHT)
        .allSatisfy(row -> assertThat(row).endsWith(" " + ClaimedMessage.IN_FLIGHT));

    int crashes = 1 + runUntilDone("sweeper", null);

    // The first crash, with its batch-mates, left them all suspect and cost none an attempt; the
    // sweeper then sent each alone, and each crash alone counted.
    assertThat(crashes)
        .as("one crash with others, then one per attempt")
        .isEqualTo(MAX_ATTEMPTS + 1);
    assertPoisonDeadAndTheRestDelivered(4, crashes);
  }

  @Test
  void aMessageThatHaltsTheSweeperEndsDeadAndTheRowsAroundItAreDelivered() throws Exception {
    haltTheSweeper(null);
  }

  @Test
  void aMessageThatHaltsTheSweeperOfEachRestartUnderOneOwnerNameEndsDead() throws Exception {
    // Each restart finds the lease under its own name, as a fixed pod name would.
    haltTheSweeper("orders-0");
  }

  private void haltTheSweeper(String owner) throws Exception {
    RelayerStore store = RelayerStore.create(PoisonSenderMain.storeOptions("sweeper"));
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      messages.add(PoisonMessageIT.message(i == 14 ? PoisonSenderMain.POISON : "OrderPlaced"));
    }
    dsl.transaction(tx -> store.enqueue(tx.dsl(), messages));

    int crashes = runUntilDone("sweeper", owner);

    // The first crash comes from a pass whose claim was its transaction's row locks: it rolled
    // back whole and left no trace. The next leader took the lease over (from another owner, or
    // from the earlier process of its own name) and committed its claims before sending: the
    // second crash left the page suspect, and from then on each suspect was sent alone, the
    // poison message's crashes alone counted.
    assertThat(crashes)
        .as("two crashes with others, then one per attempt")
        .isEqualTo(MAX_ATTEMPTS + 2);
    assertPoisonDeadAndTheRestDelivered(24, crashes);
  }

  @Test
  void aMessageThatHaltsItsLaneParksItsKeyAndEveryOtherKeyOfTheLaneIsDeliveredInOrder()
      throws Exception {
    haltTheLane(null);
  }

  @Test
  void aMessageThatHaltsTheLaneOfEachRestartUnderOneOwnerNameParksItsKey() throws Exception {
    // Each restart finds the lane's lease under its own name, as a fixed pod name would.
    haltTheLane("orders-0");
  }

  private void haltTheLane(String owner) throws Exception {
    RelayerStore store = RelayerStore.create(PoisonSenderMain.storeOptions("lanes"));
    List<NewMessage> messages = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      for (int key = 0; key < 5; key++) {
        messages.add(PoisonSenderMain.message("OrderPlaced", "key-" + key));
      }
      messages.add(
          PoisonSenderMain.message(
              round == 1 ? PoisonSenderMain.POISON : "OrderPlaced", PoisonSenderMain.POISON_KEY));
    }
    dsl.transaction(tx -> store.enqueue(tx.dsl(), messages));

    int crashes = runUntilDone("lanes", owner);

    // A pass that left no trace, a careful group step that left its heads suspect, then one crash
    // per attempt with the poison message sent alone.
    assertThat(crashes)
        .as("two crashes with others, then one per attempt")
        .isEqualTo(MAX_ATTEMPTS + 2);
    Record parked = dsl.fetchOne("select * from relayer_outbox where status = 'parked'");
    assertThat(parked).as("the poison message parks its key").isNotNull();
    assertThat(parked.get("message_type", String.class)).isEqualTo(PoisonSenderMain.POISON);
    assertThat(parked.get("last_error", String.class))
        .contains("without completing")
        .endsWith(ClaimedMessage.SENT_ALONE);
    assertThat(
            dsl.fetchValue(
                "select count(*) from relayer_outbox where ordering_key = ?",
                PoisonSenderMain.POISON_KEY))
        .as("the poison and the row behind it wait for an operator")
        .isEqualTo(2L);
    assertThat(dsl.fetchCount(DSL.table("relayer_outbox"))).isEqualTo(2);
    assertThat(dsl.fetchCount(DSL.table("relayer_outbox_dead"))).isZero();

    List<UUID> accepted = accepted();
    Map<String, List<UUID>> written = byKey(messages);
    for (int key = 0; key < 5; key++) {
      List<UUID> rows = written.get("key-" + key);
      assertThat(firstDeliveries(accepted, rows)).as("key-%s in order", key).isEqualTo(rows);
    }
    List<UUID> poisoned = written.get(PoisonSenderMain.POISON_KEY);
    assertThat(accepted).contains(poisoned.get(0)).doesNotContain(poisoned.get(2));
    assertThat(poisonSends()).isEqualTo(crashes);
  }

  @Test
  void poisonMessagesOfBothKindsAmongHundredsCostOnlyThemselvesAttemptsAndNoGoodRowIsDeadOrParked()
      throws Exception {
    // Direct dispatch, the sweeper and the lanes all run in every child, as in the default
    // Relayer: each crash takes down whatever the other paths had in flight.
    int crashes = 0;
    for (int run = 0; ; run++) {
      assertThat(run).as("children before the poisons ran out of attempts").isLessThan(30);
      CliProcess child = child(run == 0 ? "all+write" : "all", null);
      assertThat(
              dsl.fetch(
                      "select message_type from relayer_outbox_dead union all"
                          + " select message_type from relayer_outbox where status = 'parked'")
                  .map(r -> r.get(0, String.class)))
          .as("dead and parked rows after child %s", run)
          .allSatisfy(type -> assertThat(type).isEqualTo(PoisonSenderMain.POISON));
      // A good row is never sent alone while a crash happens: at most the attempt of the claim it
      // was in flight under, which its claim alone takes over.
      assertThat(
              dsl.fetchOne(
                      "select coalesce(max(attempts), 0) from relayer_outbox where message_type <> ?",
                      PoisonSenderMain.POISON)
                  .get(0, Integer.class))
          .as("most attempts of a good row after child %s", run)
          .isLessThanOrEqualTo(1);
      if (child.exitCode() == 0) {
        break;
      }
      assertThat(child.exitCode()).as("died sending: %s", child.err()).isEqualTo(137);
      crashes++;
    }

    List<NewMessage> written = PoisonSenderMain.mixedBatch();
    Record dead = dsl.fetchOne("select * from relayer_outbox_dead");
    Record parked = dsl.fetchOne("select * from relayer_outbox where status = 'parked'");
    for (Record poison : List.of(dead, parked)) {
      assertThat(poison.get("message_type", String.class)).isEqualTo(PoisonSenderMain.POISON);
      // Crashes with others cost nothing; the ones alone count, up to maxAttempts.
      assertThat(poison.get("last_error", String.class))
          .startsWith("claimed " + (MAX_ATTEMPTS + 1) + " times without completing")
          .endsWith(ClaimedMessage.SENT_ALONE);
      assertThat(sends(poison.get("message_id", UUID.class)))
          .as("sends of a poison message: maxAttempts alone, at most two with others before")
          .isBetween((long) MAX_ATTEMPTS, MAX_ATTEMPTS + 2L);
    }
    assertThat(dead.get("ordering_key", String.class)).isNull();
    assertThat(parked.get("ordering_key", String.class)).isEqualTo(PoisonSenderMain.POISON_KEY);
    assertThat(crashes).isGreaterThanOrEqualTo(2 * MAX_ATTEMPTS);

    Map<String, List<UUID>> byKey = byKey(written);
    List<UUID> poisonKey = byKey.get(PoisonSenderMain.POISON_KEY);
    assertThat(
            dsl.fetch("select message_id from relayer_outbox order by id")
                .map(r -> r.get(0, UUID.class)))
        .as("left: the parked poison and the two messages behind it")
        .containsExactlyElementsOf(poisonKey.subList(2, 5));
    List<UUID> accepted = accepted();
    List<UUID> good =
        written.stream()
            .filter(m -> !m.messageType().equals(PoisonSenderMain.POISON))
            .map(NewMessage::messageId)
            .filter(id -> !poisonKey.subList(3, 5).contains(id))
            .toList();
    assertThat(good).hasSize(100 + 100 + 2);
    assertThat(new java.util.HashSet<>(accepted))
        .as("every good message reached the broker")
        .containsAll(good);
    for (int key = 0; key < PoisonSenderMain.KEYS; key++) {
      List<UUID> rows = byKey.get("key-" + key);
      assertThat(firstDeliveries(accepted, rows)).as("key-%s in order", key).isEqualTo(rows);
    }
    assertThat(firstDeliveries(accepted, poisonKey)).isEqualTo(poisonKey.subList(0, 2));
  }

  /**
   * Runs {@code mode} children until one exits 0, each under {@code owner} (null: an identity of
   * its own); returns how many died sending poison.
   */
  private int runUntilDone(String mode, String owner) throws Exception {
    int crashes = 0;
    for (int run = 0; run < MAX_ATTEMPTS + 4; run++) {
      CliProcess child = child(mode, owner);
      if (child.exitCode() == 0) {
        return crashes;
      }
      assertThat(child.exitCode()).as("died sending: %s", child.err()).isEqualTo(137);
      crashes++;
    }
    throw new AssertionError("the poison message was still pending after " + crashes + " crashes");
  }

  private void assertPoisonDeadAndTheRestDelivered(int good, int crashes) throws Exception {
    assertThat(dsl.fetchCount(DSL.table("relayer_outbox"))).as("outbox drained").isZero();
    List<Record> dead = dsl.fetch("select * from relayer_outbox_dead");
    assertThat(dead).as("only the poison message is dead").hasSize(1);
    assertThat(dead.get(0).get("message_type", String.class)).isEqualTo(PoisonSenderMain.POISON);
    assertThat(dead.get(0).get("last_error", String.class))
        .startsWith("claimed " + (MAX_ATTEMPTS + 1) + " times without completing")
        .endsWith(ClaimedMessage.SENT_ALONE);
    UUID poison = dead.get(0).get("message_id", UUID.class);
    assertThat(accepted()).doesNotContain(poison);
    assertThat(poisonSends()).as("sent once per crash").isEqualTo(crashes);
    assertThat(new java.util.HashSet<>(accepted()))
        .as("every other message reached the broker")
        .hasSize(good);
  }

  private static NewMessage message(String type) {
    return PoisonSenderMain.message(type, null);
  }

  private CliProcess child(String mode, String owner) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                db.jdbcUrl(), db.user(), sink.toString(), mode, Integer.toString(MAX_ATTEMPTS)));
    if (owner != null) {
      args.add(owner);
    }
    return CliProcess.runMain(PoisonSenderMain.class, args);
  }

  private List<UUID> accepted() throws Exception {
    return lines("accepted ");
  }

  private long poisonSends() throws Exception {
    return lines("poison ").size();
  }

  /** How many times the broker was sent the poison message {@code id}. */
  private long sends(UUID id) throws Exception {
    return lines("poison ").stream().filter(id::equals).count();
  }

  private List<UUID> lines(String prefix) throws Exception {
    return Files.readAllLines(sink, UTF_8).stream()
        .filter(line -> line.startsWith(prefix))
        .map(line -> UUID.fromString(line.substring(prefix.length())))
        .toList();
  }

  /** Every key's message ids in the order they were written (one transaction: id order). */
  private static Map<String, List<UUID>> byKey(List<NewMessage> messages) {
    Map<String, List<UUID>> keys = new java.util.HashMap<>();
    messages.forEach(
        m -> keys.computeIfAbsent(m.orderingKey(), k -> new ArrayList<>()).add(m.messageId()));
    return keys;
  }

  private static List<UUID> firstDeliveries(List<UUID> accepted, List<UUID> rows) {
    List<UUID> first = new ArrayList<>();
    for (UUID id : accepted) {
      if (rows.contains(id) && !first.contains(id)) {
        first.add(id);
      }
    }
    return first;
  }
}
