package dev.relayer.dispatch;

import static dev.relayer.dispatch.BrokerLogTransport.LOG;
import static dev.relayer.dispatch.BrokerLogTransport.MESSAGE_ID;
import static dev.relayer.dispatch.BrokerLogTransport.ORDERING_KEY;
import static dev.relayer.dispatch.BrokerLogTransport.SENDER;
import static dev.relayer.dispatch.BrokerLogTransport.SEQ;
import static dev.relayer.dispatch.DispatchFixture.ordered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.store.NewMessage;
import dev.relayer.store.StoreOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jooq.Record2;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A separate JVM owns lanes and is killed (SIGKILL) in the middle of its passes; the instance in
 * this JVM takes its lanes over once their leases expire, and every key's first deliveries stay in
 * id order (duplicates allowed, reordering not).
 */
class LaneFailoverIT {

  static final int KEYS = 20;
  static final int PER_KEY = 15;
  static final Duration WAIT = Duration.ofSeconds(40);

  DispatchFixture fx;
  Process child;
  Path childOutput;

  /** Lane options shared by both processes. */
  static LaneOptions.Builder laneOptions() {
    return LaneOptions.builder()
        .pollInterval(Duration.ofMillis(200))
        .leaseDuration(Duration.ofSeconds(2))
        .reconnectDelay(Duration.ofMillis(200))
        .shutdownTimeout(Duration.ofSeconds(5));
  }

  @BeforeEach
  void setUp() throws IOException {
    fx = new DispatchFixture(8);
    BrokerLogTransport.create(fx.dsl);
    childOutput = Files.createTempFile("lane-owner", ".log");
  }

  @AfterEach
  void tearDown() throws Exception {
    if (child != null) {
      child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    fx.close();
    Files.deleteIfExists(childOutput);
  }

  private Process startChild(String owner, long delayMillis, int hangAfter) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(LaneOwnerProcess.class.getName());
    command.add(fx.database.jdbcUrl());
    command.add(fx.database.user());
    command.add(fx.database.password() == null ? "-" : fx.database.password());
    command.add(owner);
    command.add(Long.toString(delayMillis));
    command.add(Integer.toString(hangAfter));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(childOutput.toFile())
        .start();
  }

  private String childLog() throws IOException {
    return Files.readString(childOutput, StandardCharsets.UTF_8);
  }

  private int sentBy(String sender) {
    return fx.dsl.fetchCount(LOG, SENDER.eq(sender));
  }

  @Test
  void aKilledLaneOwnerIsReplacedAfterItsLeasesExpireAndOrderHolds() throws Exception {
    Map<UUID, Long> idOf = new HashMap<>();
    for (int round = 0; round < PER_KEY; round++) {
      List<NewMessage> batch = new ArrayList<>();
      for (int k = 0; k < KEYS; k++) {
        batch.add(ordered("account-" + k));
      }
      List<Long> ids = fx.dsl.transactionResult(tx -> fx.store.enqueue(tx.dsl(), batch));
      for (int i = 0; i < batch.size(); i++) {
        idOf.put(batch.get(i).messageId(), ids.get(i));
      }
    }

    child = startChild("doomed", 50, 30);
    await().atMost(WAIT).until(() -> childLog().contains("started"));
    // The survivor joins once the child sends: the child's passes then hold the lanes they serve,
    // and the lanes are split between the two.
    await().atMost(WAIT).until(() -> sentBy("doomed") > 0);
    RelayerDispatcher dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(
                    new BrokerLogTransport(
                        fx.database.dataSource(), "survivor", 5, Integer.MAX_VALUE))
                .options(DispatchFixture.fastOptions().build())
                .build());
    RelayerLanes survivor =
        fx.track(
            RelayerLanes.builder(dispatcher)
                .owner("survivor")
                .options(laneOptions().listen(false).build())
                .build());
    survivor.start();
    // The child's broker hangs after accepting its 30th message: its pass is stuck between the
    // acknowledgement and the delete.
    await().atMost(WAIT).until(() -> sentBy("doomed") >= 30);

    child.destroyForcibly();
    assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
    int acceptedButPending =
        fx.dsl.fetchCount(
            DSL.selectFrom(LOG)
                .where(SENDER.eq("doomed"))
                .and(
                    MESSAGE_ID.in(
                        DSL.select(DSL.field(DSL.name("message_id"), UUID.class))
                            .from(DSL.table(DSL.name("public", "relayer_outbox"))))));
    assertThat(acceptedButPending)
        .as("killed mid-batch: the broker has rows whose delete never committed")
        .isPositive();

    await()
        .atMost(WAIT)
        .until(
            () ->
                survivor
                    .ownedLanes()
                    .equals(
                        IntStream.range(0, StoreOptions.DEFAULT_LANES)
                            .boxed()
                            .collect(Collectors.toSet())));
    await().atMost(WAIT).until(() -> fx.outboxCount() == 0);

    List<Record2<UUID, String>> log =
        fx.dsl.select(MESSAGE_ID, ORDERING_KEY).from(LOG).orderBy(SEQ).fetch();
    Map<String, List<Long>> firstIdsByKey = new LinkedHashMap<>();
    Set<UUID> seen = new HashSet<>();
    for (Record2<UUID, String> entry : log) {
      if (seen.add(entry.value1())) {
        firstIdsByKey
            .computeIfAbsent(entry.value2(), k -> new ArrayList<>())
            .add(idOf.get(entry.value1()));
      }
    }
    assertThat(seen).as("nothing lost").isEqualTo(idOf.keySet());
    assertThat(log.size()).as("the replayed rows were sent again").isGreaterThan(idOf.size());
    assertThat(firstIdsByKey).hasSize(KEYS);
    firstIdsByKey.forEach(
        (key, ids) ->
            assertThat(ids).as("first deliveries of %s", key).isSortedAccordingTo(Long::compare));
    assertThat(sentBy("survivor")).isPositive();
  }
}
