package dev.relayer.bench.relayer;

import dev.relayer.bench.BenchOptions;
import dev.relayer.bench.Payload;
import dev.relayer.bench.Scenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.anchor.AnchorScenario;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.pipeline.ClosedLoopTimer;
import dev.relayer.bench.report.Ratio;
import dev.relayer.store.NewMessage;
import dev.relayer.store.RelayerStore;
import dev.relayer.store.StoreOptions;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * Scenario 2, enqueue overhead: what enqueueing adds to an application transaction. At each of
 * {@code --clients} threads, four closed loops run one after another: a transaction with one
 * business insert (baseline), the same plus {@code RelayerStore.enqueue} of 1 message, the same
 * plus a 10-message enqueue (one multi-row insert), a transaction with the 10-message enqueue alone
 * — the like-for-like counterpart of pgbench's 10-row insert, which has no business insert — and
 * the same 10 rows inserted by one prepared statement over plain JDBC, which separates what the
 * Java client and an explicit transaction cost from what Relayer and jOOQ add.
 */
public final class EnqueueOverheadScenario implements Scenario {

  /** Scenario id. */
  public static final String ID = "enqueue";

  private static final Table<Record> ORDERS = DSL.table(DSL.name("bench_orders"));
  private static final Field<Long> CUSTOMER = DSL.field(DSL.name("customer_id"), Long.class);
  private static final Field<BigDecimal> AMOUNT = DSL.field(DSL.name("amount"), BigDecimal.class);

  /** Ordering keys of the ordered variant. */
  private static final int ORDERED_KEYS = 10_000;

  /** Each variant runs in this many slices, interleaved with the others. */
  private static final int SLICES = 3;

  private final BenchOptions options;

  public EnqueueOverheadScenario(BenchOptions options) {
    this.options = options;
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "2. Enqueue overhead";
  }

  @Override
  public String description() {
    return "A jOOQ transaction (`DSLContext.transaction` over the HikariCP pool, Relayer's"
        + " after-commit listener installed, dispatcher not running) with one business insert"
        + " into `bench_orders` (id, customer_id, amount, created_at): alone (*baseline*),"
        + " plus `RelayerStore.enqueue` of one message (*1 msg*), and plus one 10-message"
        + " `enqueue` (*10 msgs*); and a transaction holding only the 10-message `enqueue`"
        + " (*10 msgs alone*); and, through a second store whose dispatcher is started (so"
        + " lane wake-ups for other instances are on; no lanes run), the business insert plus"
        + " one ordered message, its key drawn from 10,000 (*1 ordered msg, wake-ups on*); the"
        + " same through a third store with `laneNotifications` off (*wake-ups off*), which"
        + " separates what the wake-ups cost from what the key lock costs. Each runs as a closed loop on `--clients` threads, in three"
        + " slices of `--seconds`/3 interleaved with the others (a `--warmup` before the"
        + " first slice, a quarter of it before the others); latency is per transaction"
        + " including commit. *Added* ="
        + " 1-msg percentile − baseline percentile at the same concurrency. The anchors are"
        + " pgbench's enqueue figures, one auto-commit statement per transaction and no"
        + " business insert: the 10-message target compares *10 msgs alone* with the 10-row"
        + " insert; *10 msgs* (with the business insert) is shown beside it. *10 rows, plain"
        + " JDBC* inserts the same 10 rows in a transaction with one hand-written prepared"
        + " `INSERT … RETURNING id` on a pooled connection: the Java client's own floor.";
  }

  @Override
  public List<Ratio> ratios() {
    List<Ratio> ratios = new ArrayList<>();
    for (int c : options.clients()) {
      ratios.add(
          new Ratio(
              "10-msg enqueue alone / pgbench 10-row insert, " + clients(c) + " (msgs/s)",
              ID + ".c" + c + ".tenalone.msgs",
              AnchorScenario.enqueueTenKey(c),
              "≥ 0.8"));
    }
    for (int c : options.clients()) {
      ratios.add(
          Ratio.of(
              "10-row insert over plain JDBC / pgbench 10-row insert, " + clients(c) + " (msgs/s)",
              ID + ".c" + c + ".tenjdbc.msgs",
              AnchorScenario.enqueueTenKey(c)));
      ratios.add(
          Ratio.of(
              "10-msg enqueue alone / 10-row insert over plain JDBC, " + clients(c) + " (msgs/s)",
              ID + ".c" + c + ".tenalone.msgs",
              ID + ".c" + c + ".tenjdbc.msgs"));
    }
    for (int c : options.clients()) {
      ratios.add(
          Ratio.of(
              "10-msg enqueue with business insert / pgbench 10-row insert, "
                  + clients(c)
                  + " (msgs/s)",
              ID + ".c" + c + ".ten.msgs",
              AnchorScenario.enqueueTenKey(c)));
    }
    for (int c : options.clients()) {
      ratios.add(
          new Ratio(
              "1 ordered msg, wake-ups on / 1 unordered msg, " + clients(c) + " (msgs/s)",
              ID + ".c" + c + ".ordered.msgs",
              ID + ".c" + c + ".one.msgs",
              "≥ 0.95"));
    }
    for (int c : options.clients()) {
      ratios.add(
          Ratio.of(
              "1 ordered msg, wake-ups on / wake-ups off, " + clients(c) + " (msgs/s)",
              ID + ".c" + c + ".ordered.msgs",
              ID + ".c" + c + ".orderedquiet.msgs"));
      ratios.add(
          Ratio.of(
              "1 ordered msg, wake-ups off / 1 unordered msg, " + clients(c) + " (msgs/s)",
              ID + ".c" + c + ".orderedquiet.msgs",
              ID + ".c" + c + ".one.msgs"));
    }
    for (int c : options.clients()) {
      ratios.add(
          Ratio.of(
              "1-msg enqueue / pgbench single-row insert, " + clients(c) + " (msgs/s)",
              ID + ".c" + c + ".one.msgs",
              AnchorScenario.enqueueOneKey(c)));
    }
    return ratios;
  }

  @Override
  public Map<String, String> targets() {
    Map<String, String> targets = new LinkedHashMap<>();
    for (int c : options.clients()) {
      targets.put(ID + ".c" + c + ".one.added.p50", "≤ 0.3 ms");
    }
    return targets;
  }

  @Override
  public void run(ScenarioContext context) throws Exception {
    ScenarioDatabase db = context.database();
    BenchOptions o = context.options();
    db.installRelayerSchema();
    db.execute(
        "CREATE TABLE bench_orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
            + " customer_id bigint NOT NULL, amount numeric(12, 2) NOT NULL,"
            + " created_at timestamptz NOT NULL DEFAULT now())");
    DataSource pool = db.pool("relayer", o.poolSize());
    // Ordered messages through a started dispatcher (its direct dispatch stays idle: it never
    // claims ordered rows; no lanes run), so that their lane wake-ups for other instances are on.
    try (RelayerRig rig = RelayerRig.forEnqueue(pool, o);
        RelayerRig wakeups = RelayerRig.startedWithStore(StoreOptions.defaults(), pool, o);
        RelayerRig quiet =
            RelayerRig.startedWithStore(
                StoreOptions.defaults().withLaneNotifications(false), pool, o)) {
      DSLContext app = rig.app();
      RelayerStore store = rig.store();
      DSLContext orderedApp = wakeups.app();
      RelayerStore orderedStore = wakeups.store();
      DSLContext quietApp = quiet.app();
      RelayerStore quietStore = quiet.store();
      for (int clients : o.clients()) {
        String at = clients(clients);
        String key = "c" + clients;
        db.execute("TRUNCATE bench_orders, " + OutboxRows.TABLE);
        List<Variant> variants =
            List.of(
                new Variant(
                    "base", "baseline", "tx/s", 1, () -> app.transaction(tx -> order(tx.dsl()))),
                new Variant(
                    "one",
                    "1 msg",
                    "msgs/s",
                    1,
                    () ->
                        app.transaction(
                            tx -> {
                              order(tx.dsl());
                              store.enqueue(tx.dsl(), RelayerRig.message(-1));
                            })),
                new Variant(
                    "ordered",
                    "1 ordered msg, wake-ups on",
                    "msgs/s",
                    1,
                    () ->
                        orderedApp.transaction(
                            tx -> {
                              order(tx.dsl());
                              orderedStore.enqueue(tx.dsl(), orderedMessage());
                            })),
                new Variant(
                    "orderedquiet",
                    "1 ordered msg, wake-ups off",
                    "msgs/s",
                    1,
                    () ->
                        quietApp.transaction(
                            tx -> {
                              order(tx.dsl());
                              quietStore.enqueue(tx.dsl(), orderedMessage());
                            })),
                new Variant(
                    "ten",
                    "10 msgs",
                    "msgs/s",
                    10,
                    () ->
                        app.transaction(
                            tx -> {
                              order(tx.dsl());
                              store.enqueue(tx.dsl(), tenMessages());
                            })),
                new Variant(
                    "tenalone",
                    "10 msgs alone",
                    "msgs/s",
                    10,
                    () -> app.transaction(tx -> store.enqueue(tx.dsl(), tenMessages()))),
                new Variant(
                    "tenjdbc",
                    "10 rows, plain JDBC",
                    "msgs/s",
                    10,
                    () -> OutboxRows.insertInTransaction(pool, 10)));
        // Interleaved slices, so that drift hits every variant alike.
        Map<Variant, ClosedLoopTimer.Timing> timings = new LinkedHashMap<>();
        Duration slice = o.window().dividedBy(SLICES);
        for (int round = 0; round < SLICES; round++) {
          Duration warmup = round == 0 ? o.warmup() : o.warmup().dividedBy(4);
          for (Variant v : variants) {
            ClosedLoopTimer.Timing t = ClosedLoopTimer.run(clients, warmup, slice, v.task());
            timings.merge(v, t, ClosedLoopTimer.Timing::plus);
          }
        }
        for (Map.Entry<Variant, ClosedLoopTimer.Timing> e : timings.entrySet()) {
          Variant v = e.getKey();
          ClosedLoopTimer.Timing t = e.getValue();
          String rateKey = v.unit().equals("tx/s") ? ".tx" : ".msgs";
          String label = v.label() + ", " + at;
          context.record(
              key + "." + v.key() + rateKey, label, v.unit(), t.callsPerSecond() * v.perCall());
          context.record(key + "." + v.key() + ".p50", label + ": p50", "ms", t.millisAt(50));
          context.record(key + "." + v.key() + ".p99", label + ": p99", "ms", t.millisAt(99));
        }
        ClosedLoopTimer.Timing base = timings.get(variants.get(0));
        ClosedLoopTimer.Timing one = timings.get(variants.get(1));
        context.record(
            key + ".one.added.p50",
            "1 msg, " + at + ": added p50",
            "ms",
            one.millisAt(50) - base.millisAt(50));
        context.record(
            key + ".one.added.p99",
            "1 msg, " + at + ": added p99",
            "ms",
            one.millisAt(99) - base.millisAt(99));
      }
    }
  }

  /**
   * One closed-loop task of the scenario: recorded as {@code <key>.<rate key>} (rate = calls/s ×
   * {@code perCall}, in {@code unit}), {@code .p50} and {@code .p99} per transaction.
   */
  private record Variant(
      String key, String label, String unit, int perCall, ClosedLoopTimer.Task task) {}

  private static void order(DSLContext tx) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    tx.insertInto(ORDERS)
        .set(CUSTOMER, random.nextLong(1, 1_000_000))
        .set(AMOUNT, BigDecimal.valueOf(random.nextLong(100, 100_000), 2))
        .execute();
  }

  /** One ordered message, its key drawn from {@value #ORDERED_KEYS}: key locks rarely collide. */
  private static NewMessage orderedMessage() {
    return RelayerRig.message(
        -1,
        "key-" + ThreadLocalRandom.current().nextInt(ORDERED_KEYS),
        Payload.TRANSPORT,
        Payload.DESTINATION);
  }

  private static String clients(int n) {
    return n + (n == 1 ? " client" : " clients");
  }

  private static List<NewMessage> tenMessages() {
    List<NewMessage> messages = new ArrayList<>(10);
    for (int i = 0; i < 10; i++) {
      messages.add(RelayerRig.message(-1));
    }
    return messages;
  }
}
