package dev.relayer.bench.relayer;

import dev.relayer.bench.RowsScenario;
import dev.relayer.bench.ScenarioContext;
import dev.relayer.bench.db.OutboxRows;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.pipeline.CpuTime;
import dev.relayer.bench.pipeline.DeliveryProbe;
import dev.relayer.bench.pipeline.SteadyStateDriver;
import dev.relayer.bench.report.Ratio;
import dev.relayer.dispatch.DispatchOptions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Scenario 13, the cost of observing Relayer read side by side: a plain and an observed Relayer run
 * at the same time, each on a database of its own on the same server, so that whatever else the
 * machine does in a measurement falls on both. A control pair of two plain Relayers shows what the
 * pairing itself reads as a difference.
 */
public final class ObservedPairScenario implements RowsScenario {

  /** Scenario id. */
  public static final String ID = "observability-pair";

  private static final String PLAIN = "plain";
  private static final String OBSERVED = "observed";
  private static final String CONTROL = "control";

  /**
   * The load level of each side in the steady state, in percent of one plain Relayer's capacity.
   */
  private static final int LEVEL = 25;

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String title() {
    return "13. Metrics and tracing: observed and plain side by side";
  }

  @Override
  public String description() {
    return "Two Relayers as in scenario 11 (`Relayer.builder(pool)`, `ProbeTransport`, no lanes)"
        + " run at the same time, each on a database of its own on the same server and with a pool"
        + " of its own: one plain, one observed (the meters on a `PrometheusMeterRegistry`, the"
        + " spans through `RelayerTracing`, as in scenario 11). Checkpoints, autovacuum, other"
        + " processes and the machine's own speed then fall on both within one measurement."
        + " *Burn-down race*: `--rows` rows wait in each database (loaded, `VACUUM ANALYZE`,"
        + " `CHECKPOINT`); both direct dispatchers start together (with `--race-maintenance on`"
        + " each Relayer runs its maintenance worker as well, at its defaults, so its sweeper"
        + " takes part once the rows are older than its recovery delay), and the race ends when either"
        + " has delivered all of its rows; each side's rate is its rows delivered by then over the"
        + " race's time. A first race of two plain Relayers on the fresh databases is not counted;"
        + " then three races a repetition: a *control* of two plain Relayers (side B over"
        + " side A), then the observed Relayer on side A and on side B (their rates added up, so"
        + " that a difference between the sides cancels). *Steady state*: a plain Relayer's"
        + " capacity is measured alone on side A; then, after one window of two plain Relayers"
        + " that is not counted, both sides run at "
        + LEVEL
        + "% of it each at the same time (the machine at half that capacity), as a control pair"
        + " and as a plain and an observed pair, the observed on side A and B in turn by"
        + " repetition; *added p50* is one side's commit-to-send p50 minus the other's in the"
        + " same window. The JVM's costs that are not on a Relayer's own threads — garbage"
        + " collection, the span processor's thread, the gauges' refresh — slow both sides of a"
        + " pair; the span processor's and the gauges' threads are therefore reported apart, as"
        + " CPU per observed message, and the time the JVM spent collecting garbage during the"
        + " races. Each side's connections are served by server processes of their own, so the"
        + " server's CPU per message is read per side as well (from `/proc/<pid>/stat` of the"
        + " backends `pg_stat_activity` lists for the side's database, when the server runs on"
        + " this machine).";
  }

  @Override
  public List<Ratio> ratios() {
    return List.of(
        new Ratio(
            "observed direct burn-down / plain, side by side",
            ID + "." + OBSERVED + ".direct.msgs",
            ID + "." + PLAIN + ".direct.msgs",
            "≥ 0.97"),
        new Ratio(
            "control: plain side B / plain side A, side by side",
            ID + "." + CONTROL + ".b.direct.msgs",
            ID + "." + CONTROL + ".a.direct.msgs",
            "—"),
        new Ratio(
            "observed / plain server CPU per message of each side's connections",
            ID + "." + OBSERVED + ".direct.cpu.backends",
            ID + "." + PLAIN + ".direct.cpu.backends",
            "—"),
        new Ratio(
            "control: side B / side A server CPU per message of each side's connections",
            ID + "." + CONTROL + ".b.direct.cpu.backends",
            ID + "." + CONTROL + ".a.direct.cpu.backends",
            "—"));
  }

  @Override
  public Map<String, String> targets() {
    return Map.of(ID + "." + OBSERVED + ".at" + LEVEL + ".p50.added", "≤ 0.05 ms");
  }

  @Override
  public void run(ScenarioContext context, long rows) throws Exception {
    BenchTracing.noteObserving(context, "the races' rows");
    double sample = context.options().traceSample();
    AtomicLong exported = new AtomicLong();
    SdkTracerProvider tracerProvider = BenchTracing.provider(sample, exported);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (ScenarioDatabase other = ScenarioDatabase.create(context.database().server(), ID + "_b");
        OpenTelemetrySdk openTelemetry =
            OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build()) {
      Pair pair = new Pair(context, context.database(), other, openTelemetry, registry);
      boolean even = context.repetition() % 2 == 0;
      // Which side carries the observed Relayer, per race or window; null: both plain.
      Side[] races = even ? new Side[] {null, Side.A, Side.B} : new Side[] {Side.B, Side.A, null};
      // The first race on fresh databases runs slower on both sides and unevenly between them
      // (side A 13% slower in both repetitions of a first version that began with the control
      // race): it is run and not counted.
      pair.race(rows, null);
      Race observedRaces = Race.NONE;
      for (Side observed : races) {
        Race race = pair.race(rows, observed);
        if (observed == null) {
          race.recordControl(context);
        } else {
          observedRaces = observedRaces.plus(race);
        }
      }
      observedRaces.recordObserved(context);
      pair.steady(even ? new Side[] {null, Side.B} : new Side[] {Side.A, null});
      tracerProvider.forceFlush();
    } finally {
      registry.close();
    }
    added(context, CONTROL + ".b", CONTROL + ".a", CONTROL, "control: side B's p50 over side A's");
    added(context, OBSERVED, PLAIN, OBSERVED, "observed: commit-to-send p50 added to plain's");
    context.record(
        "observed.spans", "spans exported (all runs, dropped)", "spans", (double) exported.get());
  }

  /**
   * Records {@code <key>.at<LEVEL>.p50.added}: the p50 of {@code one} minus that of {@code base}.
   */
  private static void added(
      ScenarioContext context, String one, String base, String key, String label) {
    OptionalDouble a = context.recorded(one + ".at" + LEVEL + ".p50");
    OptionalDouble b = context.recorded(base + ".at" + LEVEL + ".p50");
    if (a.isPresent() && b.isPresent()) {
      context.record(
          key + ".at" + LEVEL + ".p50.added",
          label + " at " + LEVEL + "% each",
          "ms",
          a.getAsDouble() - b.getAsDouble());
    }
  }

  /** One of the two databases of a pair, and its index in the pair's arrays. */
  private enum Side {
    A(0),
    B(1);

    final int index;

    Side(int index) {
      this.index = index;
    }
  }

  /** The two sides: their databases, pools and what an observed Relayer is given. */
  private static final class Pair {
    private final ScenarioContext context;
    private final ScenarioDatabase[] databases;
    private final DataSource[] pools;
    private final OpenTelemetrySdk openTelemetry;
    private final MeterRegistry registry;

    Pair(
        ScenarioContext context,
        ScenarioDatabase a,
        ScenarioDatabase b,
        OpenTelemetrySdk openTelemetry,
        MeterRegistry registry)
        throws Exception {
      this.context = context;
      this.databases = new ScenarioDatabase[] {a, b};
      int size = context.options().poolSize();
      this.pools = new DataSource[] {a.pool("relayer-a", size), b.pool("relayer-b", size)};
      this.openTelemetry = openTelemetry;
      this.registry = registry;
      for (ScenarioDatabase database : databases) {
        database.installRelayerSchema();
      }
    }

    /** A started Relayer on {@code side}, observed or plain, reporting to {@code probe}. */
    private ObservedRelayer start(
        Side side, boolean observed, boolean maintenance, DeliveryProbe probe) {
      return ObservedRelayer.start(
          pools[side.index],
          probe,
          context.options(),
          maintenance,
          openTelemetry,
          observed ? Optional.of(registry) : Optional.empty());
    }

    /**
     * Loads {@code rows} into both sides, starts both dispatchers together and stops the clock when
     * either side has delivered all of its rows.
     */
    Race race(long rows, Side observed) throws Exception {
      long[] first = new long[2];
      for (Side side : Side.values()) {
        ScenarioDatabase database = databases[side.index];
        OutboxRows.insertPending(database, rows, context.options().traceSample());
        first[side.index] = IdRange.of(database).last() - rows + 1;
      }
      int queue = DispatchOptions.defaults().queueCapacity();
      int claimBatch = ObservedRelayer.claimBatch(context.options());
      DeliveryProbe[] probes = {new DeliveryProbe(), new DeliveryProbe()};
      List<AutoCloseable> open = new ArrayList<>();
      try {
        DirectFeeder[] feeders = new DirectFeeder[2];
        for (Side side : Side.values()) {
          int i = side.index;
          ObservedRelayer relayer =
              start(side, side == observed, context.options().raceMaintenance(), probes[i]);
          open.add(relayer);
          feeders[i] = new DirectFeeder(relayer, claimBatch, first[i], first[i] + rows - 1, queue);
          open.add(feeders[i]);
        }
        List<List<Long>> backends = List.of(backends(Side.A), backends(Side.B));
        long[] backends0 = {
          CpuTime.backendsNanos(backends.get(0)), CpuTime.backendsNanos(backends.get(1))
        };
        long[] commits0 = {databases[0].commits(), databases[1].commits()};
        long gc0 = gcMillis();
        long background0 = observerThreadsNanos();
        CpuTime.Reading cpu0 = CpuTime.Reading.now();
        long start = System.nanoTime();
        // Alternate which feeder starts first; they start microseconds apart.
        int firstFed = context.repetition() & 1;
        feeders[firstFed].startDraining();
        feeders[1 - firstFed].startDraining();
        long deadline = start + context.options().timeout().toNanos();
        while (probes[0].deliveredCount() < rows && probes[1].deliveredCount() < rows) {
          if (System.nanoTime() - deadline >= 0) {
            context.note("a race was cut short by --timeout before either side finished");
            break;
          }
          TimeUnit.MICROSECONDS.sleep(200);
        }
        long[] delivered = {probes[0].deliveredCount(), probes[1].deliveredCount()};
        double seconds = (System.nanoTime() - start) / 1e9;
        CpuTime.Reading cpu = CpuTime.Reading.now().since(cpu0);
        long background = observerThreadsNanos() - background0;
        long gc = gcMillis() - gc0;
        long[] backendNanos = new long[2];
        for (int i = 0; i < 2; i++) {
          long now = CpuTime.backendsNanos(backends.get(i));
          backendNanos[i] = now < 0 || backends0[i] < 0 ? -1 : now - backends0[i];
        }
        long[] commits = {
          databases[0].commits() - commits0[0], databases[1].commits() - commits0[1]
        };
        context.progress(
            String.format(
                "race (observed: %s): side A %,.0f msgs/s, %.1f µs server CPU and %.4f commits a"
                    + " message; side B %,.0f msgs/s, %.1f µs, %.4f commits",
                observed == null ? "neither" : observed,
                delivered[0] / seconds,
                backendNanos[0] / 1e3 / Math.max(1, delivered[0]),
                (double) commits[0] / Math.max(1, delivered[0]),
                delivered[1] / seconds,
                backendNanos[1] / 1e3 / Math.max(1, delivered[1]),
                (double) commits[1] / Math.max(1, delivered[1])));
        int o = observed == null ? 1 : observed.index;
        return new Race(
            new SideRun(delivered[0], backendNanos[0]),
            new SideRun(delivered[1], backendNanos[1]),
            new SideRun(delivered[o], backendNanos[o]),
            new SideRun(delivered[1 - o], backendNanos[1 - o]),
            seconds,
            cpu.machine(),
            background,
            gc);
      } finally {
        for (int i = open.size() - 1; i >= 0; i--) {
          open.get(i).close();
        }
        for (ScenarioDatabase database : databases) {
          database.execute("TRUNCATE " + OutboxRows.TABLE);
        }
      }
    }

    /**
     * Measures a plain Relayer's capacity alone on side A, then runs each of {@code windows} at
     * {@link #LEVEL}% of it on both sides at once: the observed Relayer on the side given, or two
     * plain ones for {@code null}.
     */
    void steady(Side[] windows) throws Exception {
      double capacity;
      DeliveryProbe alone = new DeliveryProbe();
      try (ObservedRelayer relayer = start(Side.A, false, true, alone)) {
        capacity =
            SteadyStateDriver.of(context, databases[0], "alone", "plain alone", relayer, alone)
                .measureCapacity();
      }
      truncate();
      if (!(capacity > 0)) {
        context.note("the plain Relayer alone delivered nothing at saturation; no side-by-side");
        return;
      }
      // As with the races, the first window after the capacity runs unevenly: it is not counted.
      window(capacity, null, false);
      for (Side observed : windows) {
        window(capacity, observed, true);
      }
    }

    /**
     * Runs both sides at {@link #LEVEL}% of {@code capacity} at once, the observed Relayer on
     * {@code observed} ({@code null}: two plain ones); records their figures when {@code counted}.
     */
    private void window(double capacity, Side observed, boolean counted) throws Exception {
      context.progress(
          "side by side at "
              + LEVEL
              + "% each, observed: "
              + (observed == null ? "neither" : observed)
              + (counted ? "" : " (not counted)"));
      List<AutoCloseable> open = new ArrayList<>();
      try {
        List<CompletableFuture<Void>> levels = new ArrayList<>();
        List<SteadyStateDriver> drivers = new ArrayList<>();
        for (Side side : Side.values()) {
          int i = side.index;
          String key =
              observed == null
                  ? CONTROL + "." + side.name().toLowerCase(Locale.ROOT)
                  : side == observed ? OBSERVED : PLAIN;
          DeliveryProbe probe = new DeliveryProbe();
          ObservedRelayer relayer = start(side, side == observed, true, probe);
          open.add(relayer);
          String label = observed == null ? "control, side " + side : key;
          drivers.add(SteadyStateDriver.of(context, databases[i], key, label, relayer, probe));
        }
        for (SteadyStateDriver driver : drivers) {
          levels.add(
              CompletableFuture.runAsync(
                  () -> {
                    try {
                      if (counted) {
                        driver.runLevel(LEVEL, capacity);
                      } else {
                        driver.runUncounted(LEVEL, capacity);
                      }
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  }));
        }
        CompletableFuture.allOf(levels.toArray(CompletableFuture[]::new)).join();
      } finally {
        for (int i = open.size() - 1; i >= 0; i--) {
          open.get(i).close();
        }
        truncate();
      }
    }

    /** The server processes serving {@code side}'s database: its pool's connections. */
    private List<Long> backends(Side side) throws Exception {
      List<Long> pids = new ArrayList<>();
      databases[side.index].forEachRow(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
              + " AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
          row -> pids.add(row.getLong(1)));
      return pids;
    }

    private void truncate() throws Exception {
      for (ScenarioDatabase database : databases) {
        database.execute("TRUNCATE " + OutboxRows.TABLE);
      }
    }
  }

  /**
   * What one side did in a race, or in several added up.
   *
   * @param delivered rows it delivered
   * @param backendNanos CPU time of its pool's server processes (-1 where it cannot be read)
   */
  private record SideRun(long delivered, long backendNanos) {

    static final SideRun NONE = new SideRun(0, 0);

    SideRun plus(SideRun other) {
      return new SideRun(
          delivered + other.delivered,
          backendNanos < 0 || other.backendNanos < 0 ? -1 : backendNanos + other.backendNanos);
    }

    /** Records its rate over {@code seconds} and its server processes' CPU per message. */
    void record(ScenarioContext context, String key, String label, double seconds) {
      context.record(key + ".direct.msgs", label, "msgs/s", delivered / seconds);
      if (backendNanos >= 0 && delivered > 0) {
        context.record(
            key + ".direct.cpu.backends",
            label + ": its connections' server CPU per message",
            "µs",
            backendNanos / 1e3 / delivered);
      }
    }
  }

  /**
   * One race or several added up.
   *
   * @param a side A
   * @param b side B
   * @param observed the observed side (side B in a control race)
   * @param plain the plain side (side A in a control race)
   * @param seconds how long the races ran
   * @param machineNanos the machine's CPU time meanwhile (-1 where it cannot be read)
   * @param observerNanos CPU time of the span processor's and the gauges' threads meanwhile
   * @param gcMillis time the JVM spent collecting garbage meanwhile
   */
  private record Race(
      SideRun a,
      SideRun b,
      SideRun observed,
      SideRun plain,
      double seconds,
      long machineNanos,
      long observerNanos,
      long gcMillis) {

    static final Race NONE =
        new Race(SideRun.NONE, SideRun.NONE, SideRun.NONE, SideRun.NONE, 0, 0, 0, 0);

    Race plus(Race other) {
      return new Race(
          a.plus(other.a),
          b.plus(other.b),
          observed.plus(other.observed),
          plain.plus(other.plain),
          seconds + other.seconds,
          machineNanos < 0 || other.machineNanos < 0 ? -1 : machineNanos + other.machineNanos,
          observerNanos + other.observerNanos,
          gcMillis + other.gcMillis);
    }

    void recordControl(ScenarioContext context) {
      a.record(context, CONTROL + ".a", "control race: plain side A", seconds);
      b.record(context, CONTROL + ".b", "control race: plain side B", seconds);
      machine(context, CONTROL + ".direct.cpu.machine", "control race");
    }

    void recordObserved(ScenarioContext context) {
      plain.record(context, PLAIN, "plain side of the two races", seconds);
      observed.record(context, OBSERVED, "observed side of the two races", seconds);
      machine(context, "direct.cpu.machine", "the two observed races");
      if (observed.delivered() > 0) {
        context.record(
            OBSERVED + ".direct.cpu.observers",
            "span processor's and gauges' threads, CPU per observed message",
            "µs",
            observerNanos / 1e3 / observed.delivered());
      }
      context.record(
          "direct.gc", "the two observed races: JVM time in GC", "ms", (double) gcMillis);
    }

    private void machine(ScenarioContext context, String key, String label) {
      long messages = a.delivered() + b.delivered();
      if (machineNanos >= 0 && messages > 0) {
        context.record(
            key,
            label + ": machine CPU per message, both sides",
            "µs",
            machineNanos / 1e3 / messages);
      }
    }
  }

  /** CPU time of the threads only an observed Relayer has: the span processor's and the gauges'. */
  private static long observerThreadsNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long total = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info == null) {
        continue;
      }
      String name = info.getThreadName();
      if (name.startsWith("BatchSpanProcessor") || name.endsWith("-metrics")) {
        long nanos = threads.getThreadCpuTime(info.getThreadId());
        if (nanos > 0) {
          total += nanos;
        }
      }
    }
    return total;
  }

  private static long gcMillis() {
    long total = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }
}
