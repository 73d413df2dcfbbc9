package dev.relayer.spring.boot;

import static dev.relayer.spring.boot.StarterFixture.body;
import static dev.relayer.spring.boot.StarterFixture.message;
import static dev.relayer.spring.boot.StarterFixture.ordered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.Relayer;
import dev.relayer.transport.memory.InMemoryTransport;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.jooq.DSLContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Each way a Spring Boot application writes in a transaction hands its messages over after the
 * outermost commit — never before it, and within 1 s of it — and hands nothing over for work that
 * was rolled back. The sweeper waits an hour ({@code recovery-delay}), so only the hand-off can
 * deliver within a test.
 */
class SpringHandoffIT {

  private static final Duration WITHIN = Duration.ofSeconds(1);
  private static final Duration HELD_OPEN = Duration.ofMillis(300);

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  private ApplicationContextRunner runner;

  @BeforeEach
  void runner() {
    runner =
        fixture
            .runner()
            .withUserConfiguration(StarterFixture.MemoryTransport.class, Orders.Config.class)
            .withPropertyValues(StarterFixture.SWEEPER_OUT_OF_THE_WAY);
  }

  @Test
  void transactionalMethodJoinedByAnInnerOneHandsOffAfterTheOuterCommit() {
    runner.run(
        context -> {
          Orders orders = context.getBean(Orders.class);
          InMemoryTransport memory = context.getBean(InMemoryTransport.class);
          AtomicReference<Instant> lastMomentOpen = new AtomicReference<>();

          orders.placeThroughInner("a", () -> heldOpenUnsent(memory, lastMomentOpen));

          deliveredWithinASecond(memory, lastMomentOpen.get(), "a");
        });
  }

  @Test
  void transactionTemplateHandsOffAfterItsCommit() {
    runner.run(
        context -> {
          TransactionTemplate template = context.getBean(TransactionTemplate.class);
          DSLContext dsl = context.getBean(DSLContext.class);
          Relayer relayer = context.getBean(Relayer.class);
          InMemoryTransport memory = context.getBean(InMemoryTransport.class);
          AtomicReference<Instant> lastMomentOpen = new AtomicReference<>();

          template.executeWithoutResult(
              status -> {
                relayer.store().enqueue(dsl, message("b"));
                heldOpenUnsent(memory, lastMomentOpen);
              });

          deliveredWithinASecond(memory, lastMomentOpen.get(), "b");
        });
  }

  @Test
  void injectedDslContextWithoutDslTransactionHandsOffAfterTheCommit() {
    runner.run(
        context -> {
          Orders orders = context.getBean(Orders.class);
          InMemoryTransport memory = context.getBean(InMemoryTransport.class);
          AtomicReference<Instant> lastMomentOpen = new AtomicReference<>();

          orders.place("c", () -> heldOpenUnsent(memory, lastMomentOpen));

          deliveredWithinASecond(memory, lastMomentOpen.get(), "c");
        });
  }

  @Test
  void nestedDslTransactionHandsOffAfterTheOuterCommitNotWhenItsSavepointIsReleased() {
    runner.run(
        context -> {
          Orders orders = context.getBean(Orders.class);
          InMemoryTransport memory = context.getBean(InMemoryTransport.class);
          AtomicReference<Instant> lastMomentOpen = new AtomicReference<>();

          // The savepoint is released first; the outer transaction stays open a while after it.
          orders.placeInNestedDslTransaction("d", () -> heldOpenUnsent(memory, lastMomentOpen));

          deliveredWithinASecond(memory, lastMomentOpen.get(), "d");
        });
  }

  @Test
  void topLevelDslTransactionOnTheInjectedContextHandsOffAfterItsCommit() {
    runner.run(
        context -> {
          DSLContext dsl = context.getBean(DSLContext.class);
          Relayer relayer = context.getBean(Relayer.class);
          InMemoryTransport memory = context.getBean(InMemoryTransport.class);
          AtomicReference<Instant> lastMomentOpen = new AtomicReference<>();

          dsl.transaction(
              tx -> {
                relayer.store().enqueue(tx.dsl(), message("e"));
                heldOpenUnsent(memory, lastMomentOpen);
              });

          deliveredWithinASecond(memory, lastMomentOpen.get(), "e");
        });
  }

  @Test
  void outerRollbackAfterAnInnerSavepointSendsNothing() {
    runner.run(
        context -> {
          Orders orders = context.getBean(Orders.class);
          InMemoryTransport memory = context.getBean(InMemoryTransport.class);

          assertThatThrownBy(
                  () ->
                      orders.placeInNestedDslTransaction(
                          "f",
                          () -> {
                            throw new IllegalStateException("order refused");
                          }))
              .hasMessage("order refused");

          nothingSentForASecond(memory);
          assertThat(fixture.outboxRows()).isZero();
        });
  }

  @Test
  void rolledBackSavepointSendsOnlyWhatTheOuterTransactionKept() {
    runner.run(
        context -> {
          Orders orders = context.getBean(Orders.class);
          InMemoryTransport memory = context.getBean(InMemoryTransport.class);

          orders.placeWithRolledBackSavepoint("kept", "undone");

          await().atMost(WITHIN).until(() -> memory.deliveries().size() == 1);
          nothingSentForASecond(memory, 1);
          assertThat(memory.attempts()).extracting(StarterFixture::body).containsExactly("kept");
          assertThat(fixture.outboxRows()).isZero();
        });
  }

  @Test
  void requiresNewInnerTransactionHandsOffAtItsOwnCommitWhileTheOuterOneIsOpen() {
    runner.run(
        context -> {
          Orders orders = context.getBean(Orders.class);
          InMemoryTransport memory = context.getBean(InMemoryTransport.class);
          AtomicReference<Instant> lastMomentOpen = new AtomicReference<>();

          orders.placeWithInnerOwnTransaction(
              "outer",
              "inner",
              () -> {
                // The inner transaction committed: its message goes out while the outer is open.
                await().atMost(WITHIN).until(() -> memory.deliveries().size() == 1);
                assertThat(body(memory.deliveries().get(0))).isEqualTo("inner");
                lastMomentOpen.set(Instant.now());
              });

          await().atMost(WITHIN).until(() -> memory.deliveries().size() == 2);
          assertThat(body(memory.deliveries().get(1))).isEqualTo("outer");
          assertThat(memory.deliveries().get(1).at()).isAfterOrEqualTo(lastMomentOpen.get());
        });
  }

  @Test
  void orderedMessageInASpringTransactionWakesItsLaneAfterTheCommit() {
    runner
        // No poll and no LISTEN within the test: only the in-process wake-up sends it in time.
        .withPropertyValues(
            "relayer.lanes.poll-interval=1h", "relayer.lanes.listen=false", "relayer.lane-count=2")
        .run(
            context -> {
              Orders orders = context.getBean(Orders.class);
              Relayer relayer = context.getBean(Relayer.class);
              InMemoryTransport memory = context.getBean(InMemoryTransport.class);
              // Wait until this instance owns every lane (its first passes found them empty).
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(
                      () ->
                          relayer.health().leases().stream()
                                  .filter(l -> l.name().startsWith("lane/"))
                                  .filter(l -> l.owner().equals(relayer.owner()))
                                  .count()
                              == relayer.store().options().laneCount());
              AtomicReference<Instant> lastMomentOpen = new AtomicReference<>();

              orders.placeOrdered("order-1", "g", () -> heldOpenUnsent(memory, lastMomentOpen));

              deliveredWithinASecond(memory, lastMomentOpen.get(), "g");
            });
  }

  @Test
  void relayerDslOutsideASpringTransactionIsHandedOffByTheJooqListener() {
    runner.run(
        context -> {
          Relayer relayer = context.getBean(Relayer.class);
          InMemoryTransport memory = context.getBean(InMemoryTransport.class);
          AtomicReference<Instant> lastMomentOpen = new AtomicReference<>();

          relayer
              .dsl()
              .transaction(
                  tx -> {
                    relayer.store().enqueue(tx.dsl(), message("h"));
                    heldOpenUnsent(memory, lastMomentOpen);
                  });

          deliveredWithinASecond(memory, lastMomentOpen.get(), "h");
        });
  }

  /** Keeps the transaction open a while, checking that nothing is sent meanwhile. */
  private static void heldOpenUnsent(InMemoryTransport memory, AtomicReference<Instant> last) {
    await()
        .during(HELD_OPEN)
        .atMost(HELD_OPEN.plusSeconds(1))
        .until(() -> memory.attempts().isEmpty());
    last.set(Instant.now());
  }

  private static void deliveredWithinASecond(
      InMemoryTransport memory, Instant lastMomentOpen, String body) {
    await().atMost(WITHIN).until(() -> memory.deliveries().size() == 1);
    InMemoryTransport.Delivery delivery = memory.deliveries().get(0);
    assertThat(body(delivery)).isEqualTo(body);
    assertThat(delivery.at()).isAfterOrEqualTo(lastMomentOpen);
  }

  private static void nothingSentForASecond(InMemoryTransport memory) {
    nothingSentForASecond(memory, 0);
  }

  private static void nothingSentForASecond(InMemoryTransport memory, int alreadySent) {
    await()
        .during(WITHIN)
        .atMost(WITHIN.plusSeconds(1))
        .until(() -> memory.attempts().size() == alreadySent);
  }

  /** The application's service: {@code @Transactional} methods writing through the injected DSL. */
  public static class Orders {
    private final DSLContext dsl;
    private final Relayer relayer;
    private final Inner inner;

    public Orders(DSLContext dsl, Relayer relayer, Inner inner) {
      this.dsl = dsl;
      this.relayer = relayer;
      this.inner = inner;
    }

    @Transactional
    public void place(String body, Runnable beforeCommit) {
      relayer.store().enqueue(dsl, message(body));
      beforeCommit.run();
    }

    @Transactional
    public void placeOrdered(String key, String body, Runnable beforeCommit) {
      relayer.store().enqueue(dsl, ordered(key, body));
      beforeCommit.run();
    }

    @Transactional
    public void placeThroughInner(String body, Runnable beforeCommit) {
      inner.enqueue(body);
      beforeCommit.run();
    }

    @Transactional
    public void placeInNestedDslTransaction(String body, Runnable beforeCommit) {
      dsl.transaction(tx -> relayer.store().enqueue(tx.dsl(), message(body)));
      beforeCommit.run();
    }

    @Transactional
    public void placeWithRolledBackSavepoint(String kept, String undone) {
      try {
        dsl.transaction(
            tx -> {
              relayer.store().enqueue(tx.dsl(), message(undone));
              throw new IllegalStateException("savepoint rolled back");
            });
      } catch (IllegalStateException expected) {
        // The savepoint's row is gone; the outer transaction goes on.
      }
      relayer.store().enqueue(dsl, message(kept));
    }

    @Transactional
    public void placeWithInnerOwnTransaction(
        String outer, String innerBody, Runnable beforeCommit) {
      relayer.store().enqueue(dsl, message(outer));
      inner.enqueueInOwnTransaction(innerBody);
      beforeCommit.run();
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {
      @Bean
      Inner inner(DSLContext dsl, Relayer relayer) {
        return new Inner(dsl, relayer);
      }

      @Bean
      Orders orders(DSLContext dsl, Relayer relayer, Inner inner) {
        return new Orders(dsl, relayer, inner);
      }
    }
  }

  /** A second service, called from {@link Orders}. */
  public static class Inner {
    private final DSLContext dsl;
    private final Relayer relayer;

    public Inner(DSLContext dsl, Relayer relayer) {
      this.dsl = dsl;
      this.relayer = relayer;
    }

    @Transactional
    public void enqueue(String body) {
      relayer.store().enqueue(dsl, message(body));
    }

    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public void enqueueInOwnTransaction(String body) {
      relayer.store().enqueue(dsl, message(body));
    }
  }
}
