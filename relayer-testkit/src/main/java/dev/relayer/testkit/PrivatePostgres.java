package dev.relayer.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL cluster of the caller's own, in a temporary directory on a free loopback port, which
 * the caller may crash and restart at will; no shared server is touched. The chaos tests crash it;
 * the benchmarks run on one configured like a production server.
 *
 * <p>The binaries come from {@link Config#binaries()}, else {@code RELAYER_PG_BIN}, else the newest
 * {@code /usr/lib/postgresql/<version>/bin}. {@code initdb} refuses to run as root, so when the JVM
 * runs as root every server command runs as the {@code postgres} user through {@code runuser}. The
 * cluster trusts local connections. Its settings ({@link Config#settings()}) are appended to {@code
 * postgresql.conf} after {@code initdb}, so that they hold across restarts.
 *
 * <p>{@code pg_ctl} detaches the server, so {@link #start} registers a shutdown hook that stops it
 * and deletes its directory when the JVM exits, also when it exits through {@code System.exit} or a
 * signal before {@link #close()} ran; {@link #close()} does the same at once.
 */
public final class PrivatePostgres implements AutoCloseable {

  /** The cluster's superuser, which every connection uses. */
  public static final String USER = "postgres";

  /** The environment variable naming the directory of {@code initdb} and {@code pg_ctl}. */
  public static final String BIN_VARIABLE = "RELAYER_PG_BIN";

  /**
   * What to create.
   *
   * @param name a short word for the temporary directory's and the shutdown hook's names
   * @param database the database created after the first start
   * @param settings server settings ({@code name → value}, written as {@code name = 'value'}), in
   *     order; {@code listen_addresses}, {@code port} and {@code unix_socket_directories} are set
   *     by the cluster itself
   * @param binaries the directory of {@code initdb} and {@code pg_ctl}; empty to look it up
   */
  public record Config(
      String name, String database, Map<String, String> settings, Optional<Path> binaries) {

    public Config {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(database, "database");
      if (!database.matches("[a-z_][a-z0-9_]*")) {
        throw new IllegalArgumentException(
            "database must be a lower-case SQL identifier, not '" + database + "'");
      }
      for (String key : settings.keySet()) {
        if (!key.matches("[a-z_][a-z0-9_.]*")) {
          throw new IllegalArgumentException("not a PostgreSQL setting name: '" + key + "'");
        }
      }
      settings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(settings));
      Objects.requireNonNull(binaries, "binaries");
    }
  }

  private final Config config;
  private final Path bin;
  private final Path base;
  private final Path data;
  private final int port;
  private final boolean asPostgresUser;
  private final Thread onExit;

  private PrivatePostgres(Config config, Path bin, Path base, int port, boolean asPostgresUser) {
    this.config = config;
    this.bin = bin;
    this.base = base;
    this.data = base.resolve("data");
    this.port = port;
    this.asPostgresUser = asPostgresUser;
    this.onExit = new Thread(this::stopAndDelete, "relayer-" + config.name() + "-postgres-on-exit");
  }

  /**
   * Creates the cluster ({@code initdb}), writes its settings, starts it and creates the database.
   * Throws {@link IllegalStateException} naming what failed (no binaries, a command's output); the
   * half-made cluster is stopped and deleted first.
   */
  public static PrivatePostgres start(Config config) throws IOException, InterruptedException {
    Path bin = binaries(config.binaries());
    boolean root = "root".equals(System.getProperty("user.name"));
    Path base = Files.createTempDirectory("relayer-" + config.name() + "-pg");
    if (root) {
      UserPrincipal postgres =
          base.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(USER);
      Files.setOwner(base, postgres);
    }
    PrivatePostgres server = new PrivatePostgres(config, bin, base, freePort(), root);
    Runtime.getRuntime().addShutdownHook(server.onExit);
    try {
      server.run(
          List.of(
              server.tool("initdb"),
              "-D",
              server.data.toString(),
              "-U",
              USER,
              "--auth=trust",
              "--encoding=UTF8",
              "--no-instructions"));
      server.writeSettings();
      server.startServer();
      server.run(
          List.of(
              server.tool("createdb"),
              "-h",
              "127.0.0.1",
              "-p",
              Integer.toString(server.port),
              "-U",
              USER,
              config.database()));
      return server;
    } catch (IOException | RuntimeException | InterruptedException e) {
      server.close();
      throw e;
    }
  }

  /** The loopback port the server listens on. */
  public int port() {
    return port;
  }

  /** The directory of the binaries the cluster runs. */
  public Path binaries() {
    return bin;
  }

  /** The settings written to {@code postgresql.conf}, in order. */
  public Map<String, String> settings() {
    return config.settings();
  }

  /** A JDBC URL of {@link Config#database()}, user included. */
  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + config.database() + "?user=" + USER;
  }

  /** A data source that opens a new connection to {@link Config#database()} on every call. */
  public PGSimpleDataSource dataSource() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(jdbcUrl());
    dataSource.setConnectTimeout(5);
    return dataSource;
  }

  /**
   * Stops the server abruptly ({@code pg_ctl stop -m immediate}): every backend is killed without a
   * checkpoint, as in a crash; the next start runs crash recovery.
   */
  public void crash() throws IOException, InterruptedException {
    run(List.of(tool("pg_ctl"), "-D", data.toString(), "-m", "immediate", "-w", "stop"));
  }

  /** Starts the server (again, after {@link #crash()}) and waits until it accepts connections. */
  public void startServer() throws IOException, InterruptedException {
    run(
        List.of(
            tool("pg_ctl"),
            "-D",
            data.toString(),
            "-l",
            base.resolve("server.log").toString(),
            "-w",
            "-t",
            "120",
            "-o",
            "-p " + port + " -k " + base + " -c listen_addresses=127.0.0.1",
            "start"));
  }

  /** Stops the server ({@code pg_ctl stop -m fast}) and deletes its directory. Idempotent. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(onExit);
    } catch (IllegalStateException e) {
      return; // the JVM is exiting: the hook does it
    }
    stopAndDelete();
  }

  private void writeSettings() throws IOException {
    StringBuilder lines = new StringBuilder("\n# Written by Relayer's PrivatePostgres\n");
    for (Map.Entry<String, String> setting : config.settings().entrySet()) {
      lines
          .append(setting.getKey())
          .append(" = '")
          .append(setting.getValue().replace("'", "''"))
          .append("'\n");
    }
    Files.writeString(
        data.resolve("postgresql.conf"), lines.toString(), UTF_8, StandardOpenOption.APPEND);
  }

  private synchronized void stopAndDelete() {
    try {
      if (Files.exists(data.resolve("postmaster.pid"))) {
        run(List.of(tool("pg_ctl"), "-D", data.toString(), "-m", "fast", "-w", "stop"));
      }
    } catch (IOException | RuntimeException e) {
      // best effort: the directory goes below either way
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      deleteRecursively(base);
    }
  }

  private String tool(String name) {
    return bin.resolve(name).toString();
  }

  private void run(List<String> command) throws IOException, InterruptedException {
    List<String> full = new ArrayList<>();
    if (asPostgresUser) {
      full.addAll(List.of("runuser", "-u", USER, "--"));
    }
    full.addAll(command);
    Path output = Files.createTempFile("relayer-" + config.name() + "-pg", ".out");
    try {
      ProcessBuilder builder = new ProcessBuilder(full).redirectErrorStream(true);
      builder.redirectOutput(output.toFile());
      builder.directory(base.toFile());
      Process process = builder.start();
      if (!process.waitFor(3, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException(full + " did not finish within 3 minutes");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            full
                + " exited with "
                + process.exitValue()
                + ": "
                + Files.readString(output, UTF_8).strip()
                + serverLog());
      }
    } finally {
      Files.deleteIfExists(output);
    }
  }

  /** The end of the server log, for a failed start. */
  private String serverLog() {
    Path log = base.resolve("server.log");
    try {
      if (!Files.exists(log)) {
        return "";
      }
      List<String> lines = Files.readAllLines(log, UTF_8);
      return "; server log: "
          + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    } catch (IOException e) {
      return "";
    }
  }

  private static Path binaries(Optional<Path> configured) {
    if (configured.isPresent()) {
      return requireInitdb(configured.get());
    }
    String variable = System.getenv(BIN_VARIABLE);
    if (variable != null && !variable.isBlank()) {
      return requireInitdb(Path.of(variable.trim()));
    }
    Path versions = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(versions)) {
      try (Stream<Path> children = Files.list(versions)) {
        Path newest =
            children
                .filter(p -> p.getFileName().toString().matches("\\d+"))
                .max(Comparator.comparingInt(p -> Integer.parseInt(p.getFileName().toString())))
                .orElse(null);
        if (newest != null) {
          return requireInitdb(newest.resolve("bin"));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw new IllegalStateException(
        "no PostgreSQL binaries in /usr/lib/postgresql/<version>/bin: set "
            + BIN_VARIABLE
            + " to the directory holding initdb and pg_ctl");
  }

  private static Path requireInitdb(Path bin) {
    if (!Files.isExecutable(bin.resolve("initdb")) || !Files.isExecutable(bin.resolve("pg_ctl"))) {
      throw new IllegalStateException(bin + " holds no initdb and pg_ctl");
    }
    return bin;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover temporary directory is harmless
    }
  }
}
