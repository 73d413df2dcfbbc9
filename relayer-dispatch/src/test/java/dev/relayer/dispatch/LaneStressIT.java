package dev.relayer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.spi.DeliveryEvent;
import dev.relayer.dispatch.spi.RelayerEventListener;
import dev.relayer.store.NewMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Randomized: many keys, several instances in one JVM (one leaves and another joins while writers
 * run), two transports — one keeping batch order, one not — that randomly delay, reject and throw.
 * Afterwards, for every key the first delivery of each message happened in id order, and every
 * message was delivered.
 */
class LaneStressIT {

  static final int KEYS = 80;
  static final int WRITERS = 3;
  static final int TRANSACTIONS_PER_WRITER = 60;

  DispatchFixture fx;

  /** What both transports accepted, in acceptance order. */
  final List<ChaosTransport.Accepted> broker = Collections.synchronizedList(new ArrayList<>());

  ChaosTransport ordered = new ChaosTransport("memory", 5, true, 0.08, 0.02, 2, broker);
  ChaosTransport plain = new ChaosTransport("plain", 20, false, 0.08, 0.02, 2, broker);
  List<RelayerDispatcher> writable = new CopyOnWriteArrayList<>();
  Map<RelayerDispatcher, RelayerLanes> lanesOf = new ConcurrentHashMap<>();
  AtomicInteger failures = new AtomicInteger();

  @BeforeEach
  void setUp() {
    fx = new DispatchFixture(24);
  }

  @AfterEach
  void tearDown() throws Exception {
    fx.close();
  }

  private void startInstance(String owner) {
    RelayerDispatcher dispatcher =
        fx.track(
            RelayerDispatcher.builder(fx.store, fx.dsl)
                .transport(ordered)
                .transport(plain)
                .options(
                    DispatchFixture.fastOptions()
                        .maxAttempts(1000)
                        .backoffInitial(Duration.ofMillis(5))
                        .backoffMax(Duration.ofMillis(40))
                        .build())
                .eventListener(
                    new RelayerEventListener() {
                      @Override
                      public void failed(DeliveryEvent event, String error, Instant retryAt) {
                        failures.incrementAndGet();
                      }
                    })
                .build());
    dispatcher.start();
    RelayerLanes lanes =
        fx.track(
            RelayerLanes.builder(dispatcher)
                .owner(owner)
                .options(DispatchFixture.fastLanes().keysPerPass(10).rowsPerKey(4).build())
                .build());
    lanes.start();
    lanesOf.put(dispatcher, lanes);
    writable.add(dispatcher);
  }

  private static NewMessage randomMessage(ThreadLocalRandom random) {
    String key = "key-" + random.nextInt(KEYS);
    return NewMessage.builder()
        .transport(random.nextInt(4) == 0 ? "plain" : "memory")
        .destination(random.nextInt(8) == 0 ? "audit" : "orders")
        .messageType("Changed")
        .orderingKey(key)
        .body(key.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  @Test
  void everyKeysFirstDeliveriesFollowIdOrderAndNothingIsLost() throws Exception {
    startInstance("instance-a");
    startInstance("instance-b");
    startInstance("instance-c");
    Map<UUID, Long> idOf = new ConcurrentHashMap<>();
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      done.add(
          writers.submit(
              () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int t = 0; t < TRANSACTIONS_PER_WRITER; t++) {
                  List<NewMessage> batch = new ArrayList<>();
                  int size = 1 + random.nextInt(5);
                  for (int i = 0; i < size; i++) {
                    batch.add(randomMessage(random));
                  }
                  RelayerDispatcher via = writable.get(random.nextInt(writable.size()));
                  List<Long> ids =
                      fx.app(via).transactionResult(tx -> fx.store.enqueue(tx.dsl(), batch));
                  for (int i = 0; i < batch.size(); i++) {
                    idOf.put(batch.get(i).messageId(), ids.get(i));
                  }
                  if (random.nextInt(10) == 0) {
                    Thread.sleep(random.nextInt(20));
                  }
                }
                return null;
              }));
    }
    // Membership changes while the writers run: one instance leaves, another joins.
    Thread.sleep(500);
    RelayerDispatcher leaving = writable.get(0);
    writable.remove(leaving);
    lanesOf.get(leaving).close();
    startInstance("instance-d");
    for (Future<?> writer : done) {
      writer.get(60, TimeUnit.SECONDS);
    }
    writers.shutdown();

    await().atMost(Duration.ofSeconds(60)).until(() -> fx.outboxCount() == 0);

    List<ChaosTransport.Accepted> accepted;
    synchronized (broker) {
      accepted = List.copyOf(broker);
    }
    Set<UUID> delivered = new HashSet<>();
    accepted.forEach(a -> delivered.add(a.messageId()));
    assertThat(idOf).hasSizeGreaterThan(WRITERS * TRANSACTIONS_PER_WRITER);
    assertThat(delivered).as("nothing lost").isEqualTo(idOf.keySet());
    assertThat(failures.get()).as("the transports did fail now and then").isPositive();
    Map<String, List<UUID>> firsts = ChaosTransport.firstDeliveriesByKey(accepted);
    assertThat(firsts).hasSizeGreaterThan(KEYS / 2);
    firsts.forEach(
        (key, messages) -> {
          List<UUID> byId = messages.stream().sorted(Comparator.comparingLong(idOf::get)).toList();
          assertThat(messages).as("first deliveries of %s", key).containsExactlyElementsOf(byId);
        });
  }
}
