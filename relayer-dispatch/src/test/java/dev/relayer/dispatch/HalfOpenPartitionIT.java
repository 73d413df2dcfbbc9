package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.testkit.transport.TcpProxy;
import dev.relayer.transport.memory.InMemoryTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A half-open partition between one instance and PostgreSQL — every byte stops, no connection
 * breaks, nothing answers — in the middle of that instance's lane pass, while another instance
 * runs: the partitioned instance's transaction holds its lease row lock and its claimed row, so
 * without a bound on its idle time the other instance could never take the lane over.
 */
class HalfOpenPartitionIT {

  private static final Duration LEASE = Duration.ofSeconds(1);
  private static final Duration CLAIM = Duration.ofSeconds(2);
  private static final Duration SEND_TIMEOUT = Duration.ofSeconds(1);

  TestDatabase db;
  TcpProxy proxy;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(db.dataSource(), SchemaOptions.defaults());
    Matcher url = Pattern.compile("jdbc:postgresql://([^:/]+)(?::(\\d+))?/").matcher(db.jdbcUrl());
    assertThat(url.lookingAt()).as("jdbc url %s", db.jdbcUrl()).isTrue();
    proxy =
        TcpProxy.start(url.group(1), url.group(2) == null ? 5432 : Integer.parseInt(url.group(2)));
  }

  @AfterEach
  void tearDown() {
    proxy.close();
    db.close();
  }

  /** Unpooled connections to the test database through the proxy. */
  private PGSimpleDataSource throughProxy() {
    PGSimpleDataSource source = new PGSimpleDataSource();
    source.setUrl("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + db.name());
    source.setUser(db.user());
    if (db.password() != null) {
      source.setPassword(db.password());
    }
    return source;
  }

  /** Short claims, send timeouts and leases: the bound on idle transactions is 3 s. */
  private static Relayer.Builder instance(javax.sql.DataSource dataSource, Transport transport) {
    return Relayer.builder(dataSource)
        .transport(transport)
        .dispatch(
            DispatchFixture.fastOptions().claimDuration(CLAIM).sendTimeout(SEND_TIMEOUT).build())
        .withoutMaintenance()
        .lanes(DispatchFixture.fastLanes().leaseDuration(LEASE).build());
  }

  private static NewMessage ordered(String key, String body) {
    return NewMessage.builder()
        .transport("memory")
        .destination("orders")
        .messageType("OrderChanged")
        .orderingKey(key)
        .body(body.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  private static List<String> bodies(InMemoryTransport transport) {
    return transport.deliveries().stream()
        .map(d -> new String(d.message().body(), StandardCharsets.UTF_8))
        .toList();
  }

  @Test
  void anotherInstanceTakesOverTheLaneOfAnInstancePartitionedMidPassWithinAboutTheLease() {
    InMemoryTransport sentByA = InMemoryTransport.named("memory");
    AtomicBoolean stallOnNextSend = new AtomicBoolean();
    Transport partitionedDuringSend =
        new Transport() {
          @Override
          public String name() {
            return sentByA.name();
          }

          @Override
          public int maxBatchSize() {
            return sentByA.maxBatchSize();
          }

          @Override
          public List<SendResult> send(TransportBatch batch) throws InterruptedException {
            if (stallOnNextSend.compareAndSet(true, false)) {
              // The broker takes the message; the path to the database stops answering.
              proxy.stall();
            }
            return sentByA.send(batch);
          }
        };
    InMemoryTransport sentByB = InMemoryTransport.named("memory");
    String key = "customer-" + UUID.randomUUID();

    try (Relayer a = instance(throughProxy(), partitionedDuringSend).owner("instance-a").build()) {
      a.start();
      a.dsl().transaction(tx -> a.store().enqueue(tx.dsl(), ordered(key, "warm-up")));
      await().atMost(Duration.ofSeconds(10)).until(() -> bodies(sentByA).contains("warm-up"));

      stallOnNextSend.set(true);
      a.dsl().transaction(tx -> a.store().enqueue(tx.dsl(), ordered(key, "first")));
      await().atMost(Duration.ofSeconds(10)).until(() -> bodies(sentByA).contains("first"));
      long stalledAt = System.nanoTime();

      try (Relayer b = instance(db.dataSource(), sentByB).owner("instance-b").build()) {
        b.start();
        b.dsl().transaction(tx -> b.store().enqueue(tx.dsl(), ordered(key, "second")));

        // A's pass is stuck before its commit: the row it sent is still pending, and B sends it
        // again (at least once), then the next row of the key, in order.
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> bodies(sentByB).equals(List.of("first", "second")));
        Duration took = Duration.ofNanos(System.nanoTime() - stalledAt);
        assertThat(took)
            .as("idle bound (claim + send timeout = 3 s) plus the lease and a few passes")
            .isLessThan(Duration.ofSeconds(10));
        assertThat(bodies(sentByA)).containsExactly("warm-up", "first");
        await()
            .atMost(Duration.ofSeconds(5))
            .untilAsserted(
                () ->
                    assertThat(
                            DSL.using(db.dataSource(), SQLDialect.POSTGRES)
                                .fetchCount(DSL.table(DSL.name("public", "relayer_outbox"))))
                        .as("rows left in the outbox")
                        .isZero());
      } finally {
        proxy.close(); // A's sockets close: its stuck statements fail and it can stop
      }
    }
  }
}
