package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.relayer.api.spi.OutgoingMessage;
import dev.relayer.api.spi.SendResult;
import dev.relayer.api.spi.Transport;
import dev.relayer.api.spi.TransportBatch;
import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.LaneOptions;
import dev.relayer.dispatch.MaintenanceOptions;
import dev.relayer.dispatch.RelayerDispatcher;
import dev.relayer.dispatch.RelayerLanes;
import dev.relayer.dispatch.RelayerMaintenance;
import dev.relayer.schema.SchemaOptions;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A dispatcher process whose broker (a file) dies with it on a poison message: the transport
 * appends {@code accepted <message id>} for each message of a batch until it meets one of type
 * {@value #POISON}, appends {@code poison <message id>} and halts the JVM (exit code 137), as the
 * OOM killer or a native crash in a client library would. It reports nothing for the batch.
 *
 * <p>Arguments: JDBC URL, user, sink file, mode, {@code maxAttempts}, and optionally the owner
 * identity of the sweeper or lanes (default: unique per process, {@code host/pid/random}), so that
 * a run of restarts can reuse one identity as a fixed pod name does. Modes:
 *
 * <ul>
 *   <li>{@code direct}: only direct dispatch runs; the process writes {@link #directBatch} in one
 *       application transaction, whose hand-off sends it, and waits to die;
 *   <li>{@code sweeper}: only maintenance runs (recovery delay 0); exits 0 once the outbox is
 *       empty;
 *   <li>{@code lanes}: only ordered lanes run, on a store with one lane; exits 0 once a key is
 *       parked and no key but {@value #POISON_KEY} has a pending row.
 *   <li>{@code all}: direct dispatch, maintenance (recovery delay 0) and lanes run at once, on a
 *       store with {@value #ALL_LANES} lanes, as the default {@code Relayer} does; exits 0 once a
 *       row is dead, a key is parked and no key but {@value #POISON_KEY} has a pending row. {@code
 *       all+write} first writes {@link #mixedBatch} in one application transaction, whose hand-off
 *       direct dispatch sends.
 * </ul>
 */
public final class PoisonSenderMain {

  /** The message type that halts the JVM sending it. */
  static final String POISON = "Poison";

  /** The ordering key of the poison message in {@code lanes} mode. */
  static final String POISON_KEY = "poisoned";

  static final Duration LEASE = Duration.ofSeconds(1);

  /** Lanes of the store in {@code all} mode. */
  static final int ALL_LANES = 4;

  /** Ordering keys of {@link #mixedBatch}'s good ordered messages, besides {@link #POISON_KEY}. */
  static final int KEYS = 10;

  private PoisonSenderMain() {}

  /** What {@code direct} mode writes: five messages, the third of them poison. */
  static List<NewMessage> directBatch() {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      messages.add(message(i == 2 ? POISON : "OrderPlaced", null));
    }
    return messages;
  }

  /**
   * What {@code all+write} writes, in one transaction: 100 good unordered messages with one poison
   * message among them, and 100 good ordered ones on {@value #KEYS} keys interleaved with them,
   * plus the key {@value #POISON_KEY}: two good messages, a poison one, and two more behind it.
   */
  static List<NewMessage> mixedBatch() {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      if (i == 50) {
        messages.add(message(POISON, null));
        messages.add(message("OrderPlaced", POISON_KEY));
        messages.add(message("OrderPlaced", POISON_KEY));
        messages.add(message(POISON, POISON_KEY));
        messages.add(message("OrderPlaced", POISON_KEY));
        messages.add(message("OrderPlaced", POISON_KEY));
      }
      messages.add(message("OrderPlaced", null));
      messages.add(message("OrderPlaced", "key-" + i % KEYS));
    }
    // The same ids on every call: the test reads what a child wrote.
    List<NewMessage> named = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      NewMessage m = messages.get(i);
      NewMessage.Builder builder =
          NewMessage.builder()
              .messageId(UUID.nameUUIDFromBytes(("mixed-" + i).getBytes(UTF_8)))
              .transport(m.transport())
              .destination(m.destination())
              .messageType(m.messageType())
              .body(m.body());
      named.add(
          m.orderingKey() == null ? builder.build() : builder.orderingKey(m.orderingKey()).build());
    }
    return named;
  }

  static NewMessage message(String type, String key) {
    NewMessage.Builder builder =
        NewMessage.builder()
            .transport("file")
            .destination("orders")
            .messageType(type)
            .body("{}".getBytes(UTF_8));
    return key == null ? builder.build() : builder.orderingKey(key).build();
  }

  static StoreOptions storeOptions(String mode) {
    return switch (mode) {
      case "lanes" -> new StoreOptions(SchemaOptions.defaults(), 1);
      case "all", "all+write" -> new StoreOptions(SchemaOptions.defaults(), ALL_LANES);
      default -> StoreOptions.defaults();
    };
  }

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(args[0]);
    dataSource.setUser(args[1]);
    Path sink = Path.of(args[2]);
    String mode = args[3];
    int maxAttempts = Integer.parseInt(args[4]);
    String owner = args.length > 5 ? args[5] : null;
    DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
    RelayerStore store = RelayerStore.create(storeOptions(mode));
    RelayerDispatcher dispatcher =
        RelayerDispatcher.builder(store, dsl)
            .transport(new HaltingFileTransport(sink))
            .options(
                DispatchOptions.builder()
                    .claimDuration(Duration.ofSeconds(3))
                    .sendTimeout(Duration.ofSeconds(1))
                    .maxAttempts(maxAttempts)
                    .backoffInitial(Duration.ofMillis(10))
                    .backoffMax(Duration.ofMillis(50))
                    .build())
            .build();
    switch (mode) {
      case "direct" -> {
        dispatcher.start();
        DSLContext app =
            DSL.using(dsl.configuration().deriveAppending(dispatcher.transactionListener()));
        app.transaction(tx -> store.enqueue(tx.dsl(), directBatch()));
        TimeUnit.SECONDS.sleep(30);
        System.exit(3); // direct dispatch never sent the poison message
      }
      case "sweeper" -> {
        RelayerMaintenance maintenance = maintenance(dispatcher, owner);
        maintenance.start();
        waitUntil(dsl, "select count(*) = 0 from relayer_outbox");
        maintenance.close();
      }
      case "lanes" -> {
        RelayerLanes lanes = lanes(dispatcher, owner);
        lanes.start();
        waitUntil(dsl, PARKED_AND_OTHER_KEYS_DONE);
        lanes.close();
      }
      case "all", "all+write" -> {
        dispatcher.start();
        RelayerMaintenance maintenance = maintenance(dispatcher, owner);
        RelayerLanes lanes = lanes(dispatcher, owner);
        maintenance.start();
        lanes.start();
        if (mode.equals("all+write")) {
          DSLContext app =
              DSL.using(dsl.configuration().deriveAppending(dispatcher.transactionListener()));
          app.transaction(tx -> store.enqueue(tx.dsl(), mixedBatch()));
        }
        waitUntil(
            dsl,
            "select ("
                + PARKED_AND_OTHER_KEYS_DONE
                + ") and count(*) filter (where ordering_key is null) = 0"
                + " and exists (select 1 from relayer_outbox_dead) from relayer_outbox");
        lanes.close();
        maintenance.close();
      }
      default -> throw new IllegalArgumentException("unknown mode " + mode);
    }
    dispatcher.close();
    System.exit(0);
  }

  /** True once a key is parked and no key but {@value #POISON_KEY} has a pending row. */
  private static final String PARKED_AND_OTHER_KEYS_DONE =
      "select count(*) filter (where status = 'pending' and ordering_key <> '"
          + POISON_KEY
          + "') = 0 and count(*) filter (where status = 'parked') > 0 from relayer_outbox";

  private static RelayerMaintenance maintenance(RelayerDispatcher dispatcher, String owner) {
    MaintenanceOptions options =
        MaintenanceOptions.builder()
            .recoveryDelay(Duration.ZERO)
            .sweepInterval(Duration.ofMillis(100))
            .leaseDuration(LEASE)
            .claimDuration(Duration.ofSeconds(3))
            .build();
    return owner == null
        ? RelayerMaintenance.create(dispatcher, options)
        : RelayerMaintenance.create(dispatcher, options, owner);
  }

  private static RelayerLanes lanes(RelayerDispatcher dispatcher, String owner) {
    RelayerLanes.Builder builder =
        RelayerLanes.builder(dispatcher)
            .options(
                LaneOptions.builder()
                    .leaseDuration(LEASE)
                    .pollInterval(Duration.ofMillis(100))
                    .build());
    return (owner == null ? builder : builder.owner(owner)).build();
  }

  private static void waitUntil(DSLContext dsl, String condition) throws InterruptedException {
    for (int i = 0; i < 600; i++) {
      if (Boolean.TRUE.equals(dsl.fetchValue(condition))) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    System.exit(4); // never converged
  }

  /** The file "broker": records what it accepts and dies on a poison message. */
  private static final class HaltingFileTransport implements Transport {
    private final Path sink;

    HaltingFileTransport(Path sink) {
      this.sink = sink;
    }

    @Override
    public String name() {
      return "file";
    }

    @Override
    public int maxBatchSize() {
      return 10;
    }

    @Override
    public synchronized List<SendResult> send(TransportBatch batch) throws Exception {
      StringBuilder lines = new StringBuilder();
      for (OutgoingMessage m : batch.messages()) {
        if (m.messageType().equals(POISON)) {
          lines.append("poison ").append(m.messageId()).append('\n');
          append(lines);
          Runtime.getRuntime().halt(137);
        }
        lines.append("accepted ").append(m.messageId()).append('\n');
      }
      append(lines);
      return batch.messages().stream().map(m -> SendResult.accepted()).toList();
    }

    private void append(CharSequence lines) throws Exception {
      Files.writeString(
          sink,
          lines,
          UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND,
          StandardOpenOption.SYNC);
    }
  }
}
