package dev.relayer.bench.anchor;

import dev.relayer.bench.db.ScenarioDatabase;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * The pgbench program that ships with PostgreSQL, found on {@code PATH}, then in {@code pg_config
 * --bindir}, then in {@code /usr/lib/postgresql/<version>/bin} (newest version first), unless a
 * path is given explicitly.
 */
public final class Pgbench {

  private static final Pattern PROCESSED =
      Pattern.compile("number of transactions actually processed: (\\d+)");
  private static final Pattern FAILED = Pattern.compile("number of failed transactions: (\\d+)");
  private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+)");
  private static final Pattern LATENCY = Pattern.compile("latency average = ([0-9.]+) ms");

  private final Path executable;
  private final String version;

  private Pgbench(Path executable, String version) {
    this.executable = executable;
    this.version = version;
  }

  /**
   * Finds pgbench, or throws {@link IllegalStateException} saying where it looked and how to
   * install it.
   */
  public static Pgbench locate(Optional<Path> explicit) {
    List<Path> tried = new ArrayList<>();
    List<Path> candidates = new ArrayList<>();
    if (explicit.isPresent()) {
      candidates.add(explicit.get());
    } else {
      String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
      for (String dir : path.split(File.pathSeparator, -1)) {
        if (!dir.isBlank()) {
          candidates.add(Path.of(dir, "pgbench"));
        }
      }
      pgConfigBindir().ifPresent(dir -> candidates.add(dir.resolve("pgbench")));
      candidates.addAll(debianBinaries());
    }
    for (Path candidate : candidates) {
      tried.add(candidate);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        Optional<String> version = versionOf(candidate);
        if (version.isPresent()) {
          return new Pgbench(candidate, version.get());
        }
      }
    }
    throw new IllegalStateException(
        "pgbench not found"
            + (explicit.isPresent()
                ? " at " + explicit.get()
                : " on PATH, in `pg_config --bindir` or in /usr/lib/postgresql/<version>/bin")
            + " (tried "
            + tried.size()
            + " places). The anchor scenario needs it: install PostgreSQL's programs"
            + " (Debian/Ubuntu: apt-get install postgresql-contrib, or the postgresql-<version>"
            + " package), pass --pgbench PATH, or leave out the anchor scenario.");
  }

  /** The executable. */
  public Path executable() {
    return executable;
  }

  /** Its {@code --version} line. */
  public String version() {
    return version;
  }

  /**
   * Runs pgbench against {@code database} with {@code arguments} (the database name is appended)
   * and returns its summary. {@code scripts} (file name to content) are written to pgbench's
   * working directory first, so {@code -f NAME} finds them; {@code withLatencies} adds {@code -l}
   * and reads the per-transaction log into a histogram.
   */
  public Outcome run(
      ScenarioDatabase database,
      Map<String, String> scripts,
      List<String> arguments,
      boolean withLatencies)
      throws IOException, InterruptedException {
    Path workDir = Files.createTempDirectory("relayer-bench-pgbench");
    try {
      for (Map.Entry<String, String> script : scripts.entrySet()) {
        Files.writeString(workDir.resolve(script.getKey()), script.getValue());
      }
      List<String> command = new ArrayList<>();
      command.add(executable.toString());
      command.addAll(arguments);
      if (withLatencies) {
        command.add("-l");
        command.add("--log-prefix=" + workDir.resolve("txlog"));
      }
      command.add(database.name());
      ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile());
      builder.environment().putAll(database.server().libpqEnvironment());
      builder.redirectErrorStream(true);
      Process process = builder.start();
      String output;
      try (InputStream in = process.getInputStream()) {
        output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      if (!process.waitFor(1, TimeUnit.MINUTES)) {
        process.destroyForcibly();
      }
      int exit = process.exitValue();
      if (exit != 0) {
        throw new IllegalStateException(
            "pgbench exited with " + exit + ": " + String.join(" ", command) + "\n" + output);
      }
      Histogram latencies = withLatencies ? readLog(workDir) : null;
      return new Outcome(
          (long) find(PROCESSED, output, command),
          (long) find(FAILED, output, command),
          find(TPS, output, command),
          find(LATENCY, output, command),
          Optional.ofNullable(latencies));
    } finally {
      try (Stream<Path> files = Files.walk(workDir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * pgbench's summary of one run.
   *
   * @param transactions transactions processed (all clients)
   * @param failed transactions that failed
   * @param tps transactions per second, without connection time
   * @param latencyAverageMs average latency of a transaction, ms
   * @param latenciesMicros per-transaction latencies in µs, when the log was read
   */
  public record Outcome(
      long transactions,
      long failed,
      double tps,
      double latencyAverageMs,
      Optional<Histogram> latenciesMicros) {

    /** Seconds the clients spent running transactions ({@code transactions / tps}). */
    public double seconds() {
      return tps == 0 ? 0 : transactions / tps;
    }
  }

  private static double find(Pattern pattern, String output, List<String> command) {
    Matcher m = pattern.matcher(output);
    if (!m.find()) {
      throw new IllegalStateException(
          "pgbench output lacks '"
              + pattern.pattern()
              + "': "
              + String.join(" ", command)
              + "\n"
              + output);
    }
    return Double.parseDouble(m.group(1));
  }

  private static Histogram readLog(Path dir) throws IOException {
    Histogram histogram = new Histogram(3);
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (!file.getFileName().toString().startsWith("txlog")) {
          continue;
        }
        try (Stream<String> lines = Files.lines(file)) {
          lines.forEach(
              line -> {
                // client_id transaction_no time script_no time_epoch time_us
                String[] fields = line.split(" ", -1);
                if (fields.length >= 3 && fields[2].chars().allMatch(Character::isDigit)) {
                  histogram.recordValue(Long.parseLong(fields[2]));
                }
              });
        }
      }
    }
    return histogram;
  }

  private static Optional<Path> pgConfigBindir() {
    try {
      Process process = new ProcessBuilder("pg_config", "--bindir").start();
      String out;
      try (InputStream in = process.getInputStream()) {
        out = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      }
      return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0 && !out.isEmpty()
          ? Optional.of(Path.of(out))
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static List<Path> debianBinaries() {
    Path root = Path.of("/usr/lib/postgresql");
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> versions = Files.list(root)) {
      return versions
          .filter(p -> p.getFileName().toString().matches("\\d+(\\.\\d+)?"))
          .sorted(
              Comparator.comparingDouble((Path p) -> Double.parseDouble(p.getFileName().toString()))
                  .reversed())
          .map(p -> p.resolve("bin").resolve("pgbench"))
          .toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  private static Optional<String> versionOf(Path candidate) {
    try {
      Process process = new ProcessBuilder(candidate.toString(), "--version").start();
      String out;
      try (InputStream in = process.getInputStream()) {
        out = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      }
      return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0
          ? Optional.of(out)
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
