package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.store.health.HealthReads;
import dev.relayer.testkit.RelayerSchemaInstaller;
import dev.relayer.testkit.TestDatabase;
import dev.relayer.transport.memory.InMemoryTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The default {@link Relayer}, lanes included, on a HikariCP pool of one connection: the
 * application's transactions, direct dispatch, maintenance and the lanes take turns on it, and
 * nothing holds it for good. Hikari's connection timeout is short, so a component that kept the
 * connection would make the application's next enqueue fail within seconds.
 */
class OneConnectionPoolIT {

  private static final SchemaOptions SCHEMA = SchemaOptions.of("public", "single_");

  TestDatabase db;
  HikariDataSource pool;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create();
    RelayerSchemaInstaller.applyScript(db.dataSource(), SCHEMA);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.jdbcUrl());
    config.setUsername(db.user());
    if (db.password() != null) {
      config.setPassword(db.password());
    }
    config.setMaximumPoolSize(1);
    config.setConnectionTimeout(Duration.ofSeconds(5).toMillis());
    pool = new HikariDataSource(config);
  }

  @AfterEach
  void tearDown() {
    pool.close();
    db.close();
  }

  private static NewMessage message(UUID id, String key) {
    NewMessage.Builder builder =
        NewMessage.builder()
            .messageId(id)
            .transport("memory")
            .destination("orders")
            .messageType("OrderPlaced")
            .body("{}".getBytes(StandardCharsets.UTF_8));
    return key == null ? builder.build() : builder.orderingKey(key).build();
  }

  @Test
  void theDefaultRelayerDeliversOrderedAndUnorderedMessagesOnAPoolOfOneConnection() {
    InMemoryTransport memory = InMemoryTransport.named("memory");
    List<UUID> unordered = new ArrayList<>();
    List<UUID> keyA = new ArrayList<>();
    List<UUID> keyB = new ArrayList<>();
    try (Relayer relayer =
        Relayer.builder(pool).prefix(SCHEMA.tablePrefix()).transport(memory).build()) {
      relayer.start();
      for (int i = 0; i < 10; i++) {
        UUID plain = UUID.randomUUID();
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        unordered.add(plain);
        keyA.add(a);
        keyB.add(b);
        relayer
            .dsl()
            .transaction(
                tx ->
                    relayer
                        .store()
                        .enqueue(
                            tx.dsl(),
                            List.of(
                                message(plain, null),
                                message(a, "customer-a"),
                                message(b, "customer-b"))));
      }

      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(memory.deliveredIds())
                      .containsAll(unordered)
                      .containsAll(keyA)
                      .containsAll(keyB));
      assertThat(sentInOrder(memory, "customer-a")).containsExactlyElementsOf(keyA);
      assertThat(sentInOrder(memory, "customer-b")).containsExactlyElementsOf(keyB);
      assertThat(HealthReads.of(relayer.store()).backlog(relayer.dsl(), Instant.now()).eligible())
          .isZero();
    }
  }

  /** The ids of {@code key}'s messages in the order the transport accepted them, first only. */
  private static List<UUID> sentInOrder(InMemoryTransport memory, String key) {
    List<UUID> ids = new ArrayList<>();
    for (InMemoryTransport.Delivery d : memory.deliveries()) {
      OutgoingMessage m = d.message();
      if (key.equals(m.orderingKey()) && !ids.contains(m.messageId())) {
        ids.add(m.messageId());
      }
    }
    return ids;
  }
}
