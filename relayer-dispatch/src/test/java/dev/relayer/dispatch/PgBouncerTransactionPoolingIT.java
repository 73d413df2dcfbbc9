package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.testkit.PgBouncer;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.transport.memory.InMemoryTransport;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two Relayer instances whose every connection goes through a real PgBouncer in transaction pooling
 * mode (with pgjdbc's {@code prepareThreshold=0}): enqueue, direct dispatch, the sweeper, lanes and
 * leases work, and the lane listener finds that {@code LISTEN} does not work there, says so once,
 * and the lanes poll.
 */
class PgBouncerTransactionPoolingIT {

  TestDatabase db;
  PgBouncer bouncer;
  HikariDataSource pool;
  final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
    Matcher url = Pattern.compile("jdbc:postgresql://([^:/]+)(?::(\\d+))?/").matcher(db.jdbcUrl());
    assertThat(url.lookingAt()).as("jdbc url %s", db.jdbcUrl()).isTrue();
    bouncer =
        PgBouncer.start(url.group(1), url.group(2) == null ? 5432 : Integer.parseInt(url.group(2)));
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(bouncer.jdbcUrl(db.name()));
    config.setMaximumPoolSize(6);
    pool = new HikariDataSource(config);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    if (pool != null) {
      pool.close();
    }
    if (bouncer != null) {
      bouncer.close();
    }
    db.close();
  }

  private Relayer instance(String owner, InMemoryTransport transport) {
    Relayer relayer =
        Relayer.builder(pool)
            .owner(owner)
            .transport(transport)
            .dispatch(DispatchFixture.fastOptions().build())
            .maintenance(DispatchFixture.fastMaintenance().build())
            .lanes(DispatchFixture.fastLanes().build())
            .build();
    closeables.add(relayer);
    return relayer;
  }

  private static NewMessage message(String destination, String body, String key) {
    NewMessage.Builder builder =
        NewMessage.builder()
            .transport("memory")
            .destination(destination)
            .messageType("OrderChanged")
            .body(body.getBytes(StandardCharsets.UTF_8));
    return key == null ? builder.build() : builder.orderingKey(key).build();
  }

  @Test
  void everyPartWorksThroughPgBouncerInTransactionModeAndTheLanesPollInsteadOfListening()
      throws Exception {
    InMemoryTransport sentByA = InMemoryTransport.named("memory");
    InMemoryTransport sentByB = InMemoryTransport.named("memory");
    String log;
    PrintStream stderr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(new Tee(stderr, captured), true, StandardCharsets.UTF_8));
    try {
      Relayer a = instance("instance-a", sentByA);
      Relayer b = instance("instance-b", sentByB);
      a.start();
      b.start();

      List<String> keys = List.of("k1-" + UUID.randomUUID(), "k2-" + UUID.randomUUID());
      for (int i = 0; i < 10; i++) {
        int n = i;
        // Direct dispatch: handed over at commit.
        a.dsl().transaction(tx -> a.store().enqueue(tx.dsl(), message("direct", "d" + n, null)));
        // Ordered: lanes, which hold lane leases; wake-ups cannot arrive, so they poll.
        b.dsl()
            .transaction(
                tx -> {
                  for (String key : keys) {
                    b.store().enqueue(tx.dsl(), message("ordered", key + "#" + n, key));
                  }
                });
      }
      // Written without the transaction listener: only the sweeper (under its lease) sends these.
      DSLContext plain = DSL.using(pool, SQLDialect.POSTGRES);
      for (int i = 0; i < 5; i++) {
        int n = i;
        plain.transaction(tx -> a.store().enqueue(tx.dsl(), message("swept", "s" + n, null)));
      }

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> delivered(sentByA, sentByB).size() >= 10 + 20 + 5);
      // Each listener's self-test waits 2 s for its notification, then warns and stops.
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> warnings(captured.toString(StandardCharsets.UTF_8)) >= 2);

      List<String> bodies = delivered(sentByA, sentByB);
      assertThat(bodies.stream().filter(s -> s.startsWith("d")).distinct()).hasSize(10);
      assertThat(bodies.stream().filter(s -> s.startsWith("s")).distinct()).hasSize(5);
      for (String key : keys) {
        List<String> ordered =
            Stream.of(sentByA, sentByB)
                .flatMap(t -> t.deliveries().stream())
                .map(d -> new String(d.message().body(), StandardCharsets.UTF_8))
                .filter(s -> s.startsWith(key + "#"))
                .distinct()
                .toList();
        assertThat(ordered)
            .as("key %s in order", key)
            .containsExactlyElementsOf(
                IntStream.range(0, 10).mapToObj(n -> key + "#" + n).toList());
      }
      assertThat(plain.fetchCount(DSL.table(DSL.name("public", "relayer_outbox")))).isZero();
      Map<String, String> leases = leases(plain);
      assertThat(leases)
          .as("lane leases, heartbeats and the sweeper's lease, held through PgBouncer")
          .containsKeys("instance/instance-a", "instance/instance-b")
          .hasEntrySatisfying(
              "instance/instance-a", owner -> assertThat(owner).isEqualTo("instance-a"));
      assertThat(leases.keySet()).anyMatch(name -> name.startsWith("lane/"));
      assertThat(leases.keySet())
          .anyMatch(name -> !name.startsWith("lane/") && !name.startsWith("instance/"));
      closeables.forEach(
          c -> {
            try {
              c.close();
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });
      log = captured.toString(StandardCharsets.UTF_8);
    } finally {
      System.setErr(stderr);
    }
    assertThat(warnings(log)).as("each instance's listener warns once").isEqualTo(2);
    assertThat(log)
        .contains("a test notification sent from another connection did not arrive within 2s")
        .contains("PgBouncer in transaction pooling mode")
        .contains("Lanes fall back to polling every pollInterval");
  }

  private static int warnings(String log) {
    return log.split("LISTEN does not work on this connection", -1).length - 1;
  }

  private static List<String> delivered(InMemoryTransport... transports) {
    return Stream.of(transports)
        .flatMap(t -> t.deliveries().stream())
        .map(d -> new String(d.message().body(), StandardCharsets.UTF_8))
        .distinct()
        .toList();
  }

  /** Lease name → owner, of the leases table. */
  private static Map<String, String> leases(DSLContext dsl) {
    Map<String, String> leases = new TreeMap<>();
    for (Record2<String, String> row :
        dsl.select(
                DSL.field(DSL.name("name"), String.class),
                DSL.field(DSL.name("owner"), String.class))
            .from(DSL.table(DSL.name("public", "relayer_leases")))
            .fetch()) {
      leases.put(row.value1(), row.value2());
    }
    return leases;
  }

  /** Writes to two streams: the real standard error and a capture. */
  private static final class Tee extends OutputStream {
    private final OutputStream first;
    private final OutputStream second;

    Tee(OutputStream first, OutputStream second) {
      this.first = first;
      this.second = second;
    }

    @Override
    public void write(int b) throws java.io.IOException {
      first.write(b);
      synchronized (second) {
        second.write(b);
      }
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws java.io.IOException {
      first.write(bytes, offset, length);
      synchronized (second) {
        second.write(bytes, offset, length);
      }
    }
  }
}
