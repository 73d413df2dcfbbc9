package dev.relayer.bench;

import dev.relayer.bench.anchor.AnchorScenario;
import dev.relayer.bench.anchor.Pgbench;
import dev.relayer.bench.db.PgServer;
import dev.relayer.bench.db.ScenarioDatabase;
import dev.relayer.bench.pipeline.BurnDownDriver;
import dev.relayer.bench.pipeline.SteadyStateDriver;
import dev.relayer.bench.report.MachineInfo;
import dev.relayer.bench.report.MarkdownReport;
import dev.relayer.bench.report.Results;
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
    PgServer server;
    Optional<Pgbench> pgbench = Optional.empty();
    try {
      options = BenchOptions.parse(args, System.getenv());
      scenarios = ScenarioCatalog.select(options.scenarios(), options);
      server = PgServer.of(options.pgUrl());
      try (Connection c = server.connectAdmin()) {
        c.isValid(5);
      } catch (SQLException e) {
        throw new IllegalStateException(
            "cannot connect to PostgreSQL at "
                + server.redactedUrl()
                + " (set "
                + BenchOptions.URL_VARIABLE
                + "): "
                + e.getMessage());
      }
      if (scenarios.stream().anyMatch(s -> s.id().equals(AnchorScenario.ID))) {
        pgbench = Optional.of(Pgbench.locate(options.pgbench()));
      }
    } catch (BenchOptions.HelpRequested e) {
      System.out.println(BenchOptions.USAGE);
      return;
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println("relayer-bench: " + e.getMessage());
      System.exit(2);
      return;
    }

    Instant started = Instant.now();
    String loadAtStart = MachineInfo.loadAverage().orElse("n/a");
    MachineInfo machine = MachineInfo.collect(server, pgbench.map(Pgbench::version));
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
    if (failed) {
      System.exit(1);
    }
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
