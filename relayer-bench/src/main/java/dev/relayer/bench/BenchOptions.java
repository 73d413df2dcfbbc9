package dev.relayer.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The harness's command line. Every size and duration is an option so that {@code --quick} can
 * shrink a run to a smoke test; options given explicitly win over {@code --quick}'s defaults.
 *
 * @param scenarios scenario ids to run, in the order given ({@code all} = every available one)
 * @param quick whether the quick (smoke) defaults apply
 * @param repetitions how many times each scenario runs (interleaved with the others); at least 3
 *     for published figures
 * @param rows rows waiting at the start of a burn-down (pgbench drain, peer and Relayer burn-down)
 * @param window length of one timed measurement (pgbench -T rounds up to whole seconds)
 * @param warmup load applied before a Java-side timed measurement starts counting
 * @param enqueueTransactions when present, pgbench enqueue anchors run this many transactions per
 *     client instead of for {@code window}
 * @param clients concurrency levels (pgbench clients, producer threads) for enqueue measurements
 * @param drainClients pgbench clients running the drain script
 * @param poolSize JDBC pool size for every Java system under test
 * @param producers producer threads in steady-state measurements
 * @param peerWorkers threads of the peer's executor (its dispatch workers)
 * @param peerFlushBatch the peer's {@code flushBatchSize}
 * @param relayerWorkers Relayer's direct-dispatch workers, when not its default
 * @param claimBatch Relayer's direct-dispatch {@code claimBatchSize}, when not its default
 * @param sweepBatch Relayer's sweeper {@code batchSize} in the sweeper burn-downs
 * @param backlogSizes rows already waiting in the backlog-scaling scenario
 * @param backlogRows rows timed per path for each backlog size
 * @param laneKeys ordering-key counts of the ordered-lane burn-downs
 * @param laneRows rows waiting at the start of an ordered-lane burn-down
 * @param laneInstances instance counts of the lane scale-out burn-downs
 * @param brokerMessages messages sent end to end per broker
 * @param timeout upper bound of one burn-down; a burn-down still running then is cut short and
 *     reported as such
 * @param pin how long the {@code pin} scenario holds its snapshot during its steady state
 * @param pinBucket length of one bucket of the {@code pin} scenario's figures
 * @param observe what the {@code observability} scenario's observed Relayer has: {@code both}
 *     meters and spans, {@code metrics} only or {@code tracing} only
 * @param traceSample the share of traces the {@code observability} and observers scenarios sample
 *     (1 = every one): their tracer providers sample that share of new traces and follow a stored
 *     parent's decision, and that share of their messages carry a sampled {@code traceparent}
 * @param raceMaintenance whether the {@code observability-pair} scenario's races run each Relayer
 *     with its maintenance worker at its defaults, as an application instance runs it
 * @param out where the Markdown report is written
 * @param docs a Markdown file whose results section (between the markers) is replaced by the report
 * @param pgbench pgbench executable, overriding the lookup
 * @param external whether to run on the server of {@code pgUrl} instead of a private cluster
 * @param pgUrl JDBC URL of the external PostgreSQL server (its database is used to create and drop
 *     the per-scenario databases); read only with {@code external}
 * @param commandLine the command as typed (from {@code RELAYER_BENCH_COMMAND}, which {@code
 *     bench/run} sets, or rebuilt from the arguments), for the report
 */
public record BenchOptions(
    List<String> scenarios,
    boolean quick,
    int repetitions,
    long rows,
    Duration window,
    Duration warmup,
    OptionalInt enqueueTransactions,
    List<Integer> clients,
    int drainClients,
    int poolSize,
    int producers,
    int peerWorkers,
    int peerFlushBatch,
    OptionalInt relayerWorkers,
    OptionalInt claimBatch,
    int sweepBatch,
    List<Long> backlogSizes,
    long backlogRows,
    List<Integer> laneKeys,
    long laneRows,
    List<Integer> laneInstances,
    long brokerMessages,
    Duration timeout,
    Duration pin,
    Duration pinBucket,
    String observe,
    double traceSample,
    boolean raceMaintenance,
    Path out,
    Optional<Path> docs,
    Optional<Path> pgbench,
    boolean external,
    String pgUrl,
    String commandLine) {

  /** Most rows drained per system in the untimed warm-up before the first repetition. */
  public static final long WARM_UP_ROWS = 100_000;

  /** Rows each Java system drains in the warm-up: {@code rows}, at most {@link #WARM_UP_ROWS}. */
  public long warmUpRows() {
    return Math.min(rows, WARM_UP_ROWS);
  }

  /** The environment variable naming the external PostgreSQL server ({@code --external}). */
  public static final String URL_VARIABLE = "RELAYER_PG_URL";

  /** Used when {@value #URL_VARIABLE} is not set. */
  public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  static final String USAGE =
      String.join(
          "\n",
          "usage: relayer-bench [SCENARIO[,SCENARIO...] | all] [options]",
          "",
          "Runs the scenarios interleaved and repeated, each on a fresh database, and writes a",
          "Markdown report. PostgreSQL is a private cluster the harness creates (initdb in a",
          "temporary directory, a free loopback port, autovacuum on; every setting is in the",
          "report) and deletes at exit, from RELAYER_PG_BIN or the newest",
          "/usr/lib/postgresql/<version>/bin; with --external it is the server of RELAYER_PG_URL",
          "(default " + DEFAULT_URL + ") as it is configured.",
          "",
          "options (full-run default / --quick default):",
          "  --quick                   smoke run: small sizes and short windows",
          "  --reps N                  repetitions of every scenario (3 / 3)",
          "  --rows N                  rows waiting at the start of a burn-down (1000000 / 1000)",
          "  --seconds S               length of one timed measurement (10 / 0.3)",
          "  --warmup S                warm-up before a Java-side measurement (2 / 0.1)",
          "  --enqueue-transactions N  pgbench enqueue: N transactions per client instead of",
          "                            --seconds (unset / 50)",
          "  --clients LIST            concurrency levels of enqueue measurements (1,4,8 / 1,4)",
          "  --drain-clients N         pgbench clients running the drain script (2)",
          "  --pool-size N             JDBC pool size of every Java system under test (10)",
          "  --producers N             producer threads in steady-state measurements (4)",
          "  --peer-workers N          the peer's executor threads (4)",
          "  --peer-flush-batch N      the peer's flushBatchSize (4096, its default)",
          "  --relayer-workers N       Relayer's direct-dispatch workers (its default, 2)",
          "  --claim-batch N           Relayer's direct-dispatch claimBatchSize (its default, 500)",
          "  --sweep-batch N           Relayer's sweeper batchSize in sweeper burn-downs (100)",
          "  --backlog-sizes LIST      rows already waiting, backlog scaling",
          "                            (100000,1000000,10000000 / 1000,5000)",
          "  --backlog-rows N          rows timed per path for each backlog size (300000 / 500)",
          "  --lane-keys LIST          ordering keys of the lane burn-downs (1,100,10000)",
          "  --lane-rows N             rows per lane burn-down (5000 / 500)",
          "  --lane-instances LIST     Relayer instances of the lane scale-out (1,2,3 / 1,2)",
          "  --broker-messages N       messages sent end to end per broker (20000 / 500)",
          "  --timeout S               longest burn-down before it is cut short (600 / 60)",
          "  --pin S                   pin: how long the snapshot is held in steady state (600 / 3)",
          "  --pin-bucket S            pin: length of one bucket of its figures (60 / 1)",
          "  --observe WHAT            observability: what the observed Relayer has, both,",
          "                            metrics or tracing (both)",
          "  --trace-sample R          observability, observers: share of traces sampled,",
          "                            0 < R <= 1 (1)",
          "  --race-maintenance on|off observability-pair: the races' Relayers run their",
          "                            maintenance worker too (off)",
          "  --external                run on RELAYER_PG_URL's server, not a private cluster",
          "  --out FILE                report file (benchmarks.md)",
          "  --docs FILE               also replace the results section of FILE",
          "  --pgbench PATH            pgbench to use (default: PATH, pg_config --bindir,",
          "                            /usr/lib/postgresql/<version>/bin)",
          "  --help                    this text");

  /** Parses the command line; throws {@link IllegalArgumentException} naming a bad argument. */
  public static BenchOptions parse(String[] args, Map<String, String> env) {
    Map<String, String> values = new HashMap<>();
    List<String> scenarios = new ArrayList<>();
    boolean quick = false;
    boolean external = false;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--quick")) {
        quick = true;
      } else if (arg.equals("--external")) {
        external = true;
      } else if (arg.equals("--help") || arg.equals("-h")) {
        throw new HelpRequested();
      } else if (arg.startsWith("--")) {
        String name = arg;
        String value;
        int eq = arg.indexOf('=');
        if (eq > 0) {
          name = arg.substring(0, eq);
          value = arg.substring(eq + 1);
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          throw new IllegalArgumentException(name + " needs a value");
        }
        values.put(name, value);
      } else {
        scenarios.addAll(Arrays.asList(arg.split(",")));
      }
    }
    if (scenarios.isEmpty()) {
      scenarios.add("all");
    }
    Options o = new Options(values);
    BenchOptions options =
        new BenchOptions(
            List.copyOf(scenarios),
            quick,
            o.integer("--reps", 3, 1),
            o.longValue("--rows", quick ? 1_000 : 1_000_000, 100),
            o.seconds("--seconds", quick ? 0.3 : 10.0),
            o.seconds("--warmup", quick ? 0.1 : 2.0),
            values.containsKey("--enqueue-transactions") || quick
                ? OptionalInt.of(o.integer("--enqueue-transactions", 50, 1))
                : OptionalInt.empty(),
            o.list("--clients", quick ? List.of(1, 4) : List.of(1, 4, 8)),
            o.integer("--drain-clients", 2, 1),
            o.integer("--pool-size", 10, 2),
            o.integer("--producers", 4, 1),
            o.integer("--peer-workers", 4, 1),
            o.integer("--peer-flush-batch", 4096, 1),
            o.optionalInteger("--relayer-workers", 1),
            o.optionalInteger("--claim-batch", 1),
            o.integer("--sweep-batch", 100, 1),
            o.longList(
                "--backlog-sizes",
                quick ? List.of(1_000L, 5_000L) : List.of(100_000L, 1_000_000L, 10_000_000L)),
            o.longValue("--backlog-rows", quick ? 500 : 300_000, 1),
            o.list("--lane-keys", List.of(1, 100, 10_000)),
            o.longValue("--lane-rows", quick ? 500 : 5_000, 1),
            o.list("--lane-instances", quick ? List.of(1, 2) : List.of(1, 2, 3)),
            o.longValue("--broker-messages", quick ? 500 : 20_000, 1),
            o.seconds("--timeout", quick ? 60.0 : 600.0),
            o.seconds("--pin", quick ? 3.0 : 600.0),
            o.seconds("--pin-bucket", quick ? 1.0 : 60.0),
            o.choice("--observe", "both", List.of("both", "metrics", "tracing")),
            o.share("--trace-sample", 1.0),
            o.choice("--race-maintenance", "off", List.of("on", "off")).equals("on"),
            Path.of(values.getOrDefault("--out", "benchmarks.md")),
            Optional.ofNullable(values.get("--docs")).map(Path::of),
            Optional.ofNullable(values.get("--pgbench")).map(Path::of),
            external,
            Optional.ofNullable(env.get(URL_VARIABLE))
                .filter(s -> !s.isBlank())
                .map(String::trim)
                .orElse(DEFAULT_URL),
            Optional.ofNullable(env.get("RELAYER_BENCH_COMMAND"))
                .filter(s -> !s.isBlank())
                .orElse(
                    "java -jar relayer-bench.jar"
                        + (args.length == 0 ? "" : " " + String.join(" ", args))));
    o.rejectUnknown();
    return options;
  }

  /** Thrown by {@link #parse} for {@code --help}. */
  static final class HelpRequested extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HelpRequested() {
      super("help", null, false, false);
    }
  }

  private static final class Options {
    private final Map<String, String> values;
    private final Map<String, String> unused;

    Options(Map<String, String> values) {
      this.values = values;
      this.unused = new HashMap<>(values);
    }

    private String take(String name) {
      unused.remove(name);
      return values.get(name);
    }

    String choice(String name, String fallback, List<String> allowed) {
      String raw = take(name);
      if (raw == null) {
        return fallback;
      }
      if (!allowed.contains(raw)) {
        throw new IllegalArgumentException(
            name + " must be one of " + String.join(", ", allowed) + ", got '" + raw + "'");
      }
      return raw;
    }

    int integer(String name, int fallback, int min) {
      return (int) longValue(name, fallback, min);
    }

    long longValue(String name, long fallback, long min) {
      String raw = take(name);
      if (raw == null) {
        return fallback;
      }
      long value;
      try {
        value = Long.parseLong(raw.replace("_", ""));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + " must be a whole number, not '" + raw + "'");
      }
      if (value < min) {
        throw new IllegalArgumentException(name + " must be at least " + min + ", not " + value);
      }
      return value;
    }

    Duration seconds(String name, double fallback) {
      double value = decimal(name, fallback, "a number of seconds");
      if (!(value > 0)) {
        throw new IllegalArgumentException(name + " must be more than 0 seconds, not " + value);
      }
      return Duration.ofNanos(Math.round(value * 1e9));
    }

    double share(String name, double fallback) {
      double value = decimal(name, fallback, "a number");
      if (!(value > 0 && value <= 1)) {
        throw new IllegalArgumentException(
            name + " must be more than 0 and at most 1, not " + value);
      }
      return value;
    }

    /** The value of {@code name} as a number, {@code fallback} when not given. */
    private double decimal(String name, double fallback, String what) {
      String raw = take(name);
      try {
        return raw == null ? fallback : Double.parseDouble(raw);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + " must be " + what + ", not '" + raw + "'");
      }
    }

    OptionalInt optionalInteger(String name, int min) {
      return values.containsKey(name)
          ? OptionalInt.of(integer(name, min, min))
          : OptionalInt.empty();
    }

    List<Long> longList(String name, List<Long> fallback) {
      String raw = take(name);
      if (raw == null) {
        return fallback;
      }
      List<Long> result = new ArrayList<>();
      for (String part : raw.replace("_", "").split(",", -1)) {
        try {
          long value = Long.parseLong(part.trim());
          if (value < 1) {
            throw new NumberFormatException();
          }
          result.add(value);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              name + " must list whole numbers of at least 1, not '" + raw + "'");
        }
      }
      return List.copyOf(result);
    }

    List<Integer> list(String name, List<Integer> fallback) {
      List<Long> values = longList(name, null);
      if (values == null) {
        return fallback;
      }
      List<Integer> result = new ArrayList<>(values.size());
      for (long value : values) {
        if (value > Integer.MAX_VALUE) {
          throw new IllegalArgumentException(
              name + " must list numbers up to " + Integer.MAX_VALUE + ", not " + value);
        }
        result.add((int) value);
      }
      return List.copyOf(result);
    }

    void rejectUnknown() {
      unused.remove("--out");
      unused.remove("--docs");
      unused.remove("--pgbench");
      if (!unused.isEmpty()) {
        throw new IllegalArgumentException(
            "unknown option " + String.join(", ", unused.keySet()) + " (see --help)");
      }
    }
  }
}
