package dev.relayer.it.chaos;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.relayer.store.NewMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.Record1;
import org.jooq.impl.DSL;

/**
 * A producer of the chaos run: an application that writes messages in its own transactions through
 * the dispatcher's transaction listener (so direct dispatch sends them after commit), until it is
 * killed or stopped. Each transaction enqueues one to three unordered messages and up to two
 * ordered ones on keys {@code k-00..k-31}, and records each message it enqueued in {@link
 * ChaosTables#COMMITTED} in the same transaction: what that table holds was committed, whatever
 * happens to the process afterwards.
 *
 * <p>A transaction that finds a request in {@link ChaosTables#POISON_REQUESTS} takes it and writes
 * one {@value PoisonTransport#TYPE} message instead (ordered ones on a key of their own), so the
 * poison is committed by a real application transaction and handed to direct dispatch like any
 * other message. Arguments: {@code jdbcUrl=... amqpUri=... destination=... name=...
 * pauseMillis=...}.
 */
public final class ProducerMain {

  static final int KEYS = 32;

  private ProducerMain() {}

  public static void main(String[] argv) throws Exception {
    ChaosNode node = ChaosNode.fromArgs(argv, 4);
    long pauseMillis = Long.parseLong(node.args.get("pauseMillis"));
    CountDownLatch stopped = new CountDownLatch(1);
    Thread writer = Thread.currentThread();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  writer.interrupt();
                  try {
                    stopped.await(5, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  node.close();
                },
                "chaos-producer-shutdown"));
    ChaosNode.startRetrying(node.dispatcher::start);
    DSLContext app =
        DSL.using(node.dsl.configuration().deriveAppending(node.dispatcher.transactionListener()));
    System.out.println("started");
    System.out.flush();
    long committed = 0;
    long nextReport = System.nanoTime();
    try {
      while (!Thread.currentThread().isInterrupted()) {
        if (System.nanoTime() - nextReport >= 0) {
          System.out.println(java.time.Instant.now() + " committed " + committed + " transactions");
          nextReport = System.nanoTime() + 10_000_000_000L;
        }
        try {
          app.transaction(tx -> writeOnce(node, tx.dsl()));
          committed++;
        } catch (RuntimeException e) {
          // PostgreSQL restarting, a pool timeout: nothing was committed, try again.
          System.err.println("transaction failed: " + e);
          sleep(200);
        }
        sleep(pauseMillis);
      }
    } finally {
      stopped.countDown();
    }
  }

  private static void writeOnce(ChaosNode node, DSLContext tx) {
    Record1<Boolean> poison =
        tx.deleteFrom(ChaosTables.POISON_REQUESTS)
            .where(
                ChaosTables.REQUEST_ID.eq(
                    DSL.select(ChaosTables.REQUEST_ID)
                        .from(ChaosTables.POISON_REQUESTS)
                        .orderBy(ChaosTables.REQUEST_ID)
                        .limit(1)
                        .forUpdate()
                        .skipLocked()))
            .returningResult(ChaosTables.REQUEST_ORDERED)
            .fetchOne();
    List<NewMessage> messages = new ArrayList<>();
    if (poison != null) {
      UUID id = UUID.randomUUID();
      messages.add(
          message(node, id, PoisonTransport.TYPE, poison.value1() ? "poison-" + id : null));
    } else {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      for (int i = 1 + random.nextInt(3); i > 0; i--) {
        messages.add(message(node, UUID.randomUUID(), "OrderPlaced", null));
      }
      for (int i = random.nextInt(3); i > 0; i--) {
        String key = String.format("k-%02d", random.nextInt(KEYS));
        messages.add(message(node, UUID.randomUUID(), "OrderPlaced", key));
      }
    }
    List<Long> ids = node.store.enqueue(tx, messages);
    var insert =
        tx.insertInto(
            ChaosTables.COMMITTED,
            ChaosTables.MESSAGE_ID,
            ChaosTables.OUTBOX_ID,
            ChaosTables.ORDERING_KEY,
            ChaosTables.POISON,
            ChaosTables.PRODUCER);
    for (int i = 0; i < messages.size(); i++) {
      NewMessage message = messages.get(i);
      insert =
          insert.values(
              message.messageId(),
              ids.get(i),
              message.orderingKey(),
              PoisonTransport.TYPE.equals(message.messageType()),
              node.name());
    }
    insert.execute();
  }

  private static NewMessage message(ChaosNode node, UUID id, String type, String key) {
    NewMessage.Builder builder =
        NewMessage.builder()
            .messageId(id)
            .transport("rabbitmq")
            .destination(node.destination())
            .messageType(type)
            .body(("{\"producer\":\"" + node.name() + "\"}").getBytes(UTF_8));
    if (key != null) {
      builder.orderingKey(key).header(ChaosTables.KEY_HEADER, key);
    }
    return builder.build();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
