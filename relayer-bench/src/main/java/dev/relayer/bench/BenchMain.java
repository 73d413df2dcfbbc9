package dev.relayer.bench;

import dev.relayer.bench.anchor.AnchorScenario;
import dev.relayer.bench.anchor.Pgbench;
import dev.relayer.bench.db.BenchCluster;
import dev.relayer.bench.db.PgServer;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.pipeline.BurnDownDriver;
import dev.relayer.bench.pipeline.CpuTime;
import dev.relayer.bench.pipeline.PairedRuns;
import dev.relayer.bench.pipeline.SteadyStateDriver;
import dev.relayer.bench.report.MachineInfo;
import dev.relayer.bench.report.MarkdownReport;
import dev.relayer.bench.report.Results;
import dev.relayer.testkit.PrivatePostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The benchmark harness's entry point: {@code java -jar relayer-bench.jar [SCENARIOS] [options]}
 * (see {@code --help}). Exit status 0 when every scenario ran in every repetition, 1 when one
 * failed (the report says which), 2 for a bad command line or environment.
 */
public final class BenchMain {

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    quietLogging();
    BenchOptions options;
    List<Scenario> scenarios;
    try {
      options = BenchOptions.parse(args, System.getenv());
      scenarios = ScenarioCatalog.select(options.scenarios(), options);
    } catch (BenchOptions.HelpRequested e) {
      System.out.println(BenchOptions.USAGE);
      return;
    } catch (IllegalArgumentException e) {
      System.err.println("relayer-bench: " + e.getMessage());
      System.exit(2);
      return;
    }
    PrivatePostgres cluster = null;
    int status;
    try {
      // Read before a cluster starts, so that a wrong pairing variable stops the run at once.
      String paired = PairedRuns.fromEnvironment().map(p -> "; " + p.describe()).orElse("");
      String serverKind;
      if (options.external()) {
        serverKind = "external: --external, " + BenchOptions.URL_VARIABLE + ", as configured";
      } else {
        System.err.println("relayer-bench: starting a private PostgreSQL cluster");
        cluster = BenchCluster.start();
        serverKind =
            "private cluster: initdb in a temporary directory, port "
                + cluster.port()
                + ", binaries "
                + cluster.binaries()
                + ", deleted at exit";
      }
      String url = cluster == null ? options.pgUrl() : cluster.jdbcUrl();
      status = run(options, scenarios, url, serverKind + paired);
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println("relayer-bench: " + e.getMessage());
      status = 2;
    } finally {
      if (cluster != null) {
        cluster.close();
      }
    }
    if (status != 0) {
      System.exit(status);
    }
  }

  /** Runs every repetition on the server of {@code url}; returns the exit status. */
  private static int run(
      BenchOptions options, List<Scenario> scenarios, String url, String serverKind)
      throws Exception {
    PgServer server = PgServer.of(url);
    try (Connection c = server.connectAdmin()) {
      c.isValid(5);
      CpuTime.watchPostgres(c);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot connect to PostgreSQL at "
              + server.redactedUrl()
              + (options.external() ? " (set " + BenchOptions.URL_VARIABLE + ")" : "")
              + ": "
              + e.getMessage());
    }
    Optional<Pgbench> pgbench = Optional.empty();
    if (scenarios.stream().anyMatch(s -> s.id().equals(AnchorScenario.ID))) {
      pgbench = Optional.of(Pgbench.locate(options.pgbench()));
    }

    Instant started = Instant.now();
    String loadAtStart = MachineInfo.loadAverage().orElse("n/a");
    MachineInfo machine = MachineInfo.collect(server, serverKind, pgbench.map(Pgbench::version));
    Results results = new Results(options.repetitions());
    boolean failed = false;
    for (Scenario scenario : scenarios) {
      if (scenario.warmsUp()) {
        failed |= !runOnce(scenario, options, server, ScenarioContext.WARM_UP, results, pgbench);
      }
    }
    for (int rep = 0; rep < options.repetitions(); rep++) {
      for (Scenario scenario : rotate(scenarios, rep)) {
        failed |= !runOnce(scenario, options, server, rep, results, pgbench);
      }
    }
    MarkdownReport.RunInfo run =
        new MarkdownReport.RunInfo(
            options.commandLine(),
            options.quick(),
            started,
            Duration.between(started, Instant.now()),
            loadAtStart,
            MachineInfo.loadAverage().orElse("n/a"));
    String report =
        MarkdownReport.render(
            run,
            machine,
            BurnDownDriver.METHOD + "\n\n" + SteadyStateDriver.METHOD,
            scenarios,
            results);
    Path out = options.out().toAbsolutePath();
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, report);
    System.err.println("relayer-bench: report written to " + options.out());
    if (options.docs().isPresent()) {
      MarkdownReport.splice(options.docs().get(), report);
      System.err.println("relayer-bench: results section of " + options.docs().get() + " replaced");
    }
    return failed ? 1 : 0;
  }

  private static boolean runOnce(
      Scenario scenario,
      BenchOptions options,
      PgServer server,
      int rep,
      Results results,
      Optional<Pgbench> pgbench) {
    boolean warmUp = rep == ScenarioContext.WARM_UP;
    try (ScenarioDatabase db = ScenarioDatabase.create(server, scenario.id())) {
      ScenarioContext context =
          new ScenarioContext(
              scenario,
              options,
              db,
              rep,
              warmUp ? new Results(options.repetitions()) : results,
              pgbench);
      context.progress("database " + db.name());
      long start = System.nanoTime();
      if (warmUp) {
        scenario.warmUp(context);
      } else {
        scenario.run(context);
      }
      context.progress(String.format("done in %.1f s", (System.nanoTime() - start) / 1e9));
      return true;
    } catch (Exception e) {
      String which = warmUp ? "the warm-up" : "repetition " + (rep + 1);
      results.note(scenario.id(), which + " failed: " + e);
      System.err.printf("[%s %s] failed:%n", which, scenario.id());
      e.printStackTrace();
      return false;
    }
  }

  private static List<Scenario> rotate(List<Scenario> scenarios, int by) {
    List<Scenario> rotated = new ArrayList<>(scenarios.size());
    for (int i = 0; i < scenarios.size(); i++) {
      rotated.add(scenarios.get((i + by) % scenarios.size()));
    }
    return rotated;
  }

  /** WARN for everything: the peer logs every message at INFO, and progress goes to stderr. */
  private static void quietLogging() {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
    System.setProperty("org.jooq.no-logo", "true");
    System.setProperty("org.jooq.no-tips", "true");
  }
}
