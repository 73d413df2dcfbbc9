package dev.relayer.it.chaos;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL cluster of the test's own, in a temporary directory on a free loopback port, which
 * the test may crash and restart at will; the machine's shared server is never touched.
 *
 * <p>The binaries come from {@code -Drelayer.chaos.pgBin}, else {@code RELAYER_PG_BIN}, else the
 * newest {@code /usr/lib/postgresql/<version>/bin}. {@code initdb} refuses to run as root, so when
 * the test runs as root every server command runs as the {@code postgres} user through {@code
 * runuser}. The cluster trusts local connections; {@code fsync} is off, which changes nothing for
 * what the test does to it: {@link #crash()} kills the server processes, not the machine, and the
 * operating system keeps every write they made.
 */
final class PrivatePostgres implements AutoCloseable {

  static final String USER = "postgres";
  static final String DATABASE = "chaos";

  private final Path bin;
  private final Path base;
  private final Path data;
  private final int port;
  private final boolean asPostgresUser;
  private final Thread onExit = new Thread(this::stopAndDelete, "chaos-postgres-on-exit");

  private PrivatePostgres(Path bin, Path base, int port, boolean asPostgresUser) {
    this.bin = bin;
    this.base = base;
    this.data = base.resolve("data");
    this.port = port;
    this.asPostgresUser = asPostgresUser;
  }

  /** Creates the cluster, starts it and creates the database {@value #DATABASE}. */
  static PrivatePostgres start() throws IOException, InterruptedException {
    boolean root = "root".equals(System.getProperty("user.name"));
    Path base = Files.createTempDirectory("relayer-chaos-pg");
    if (root) {
      UserPrincipal postgres =
          base.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(USER);
      Files.setOwner(base, postgres);
    }
    PrivatePostgres server = new PrivatePostgres(binaries(), base, freePort(), root);
    // pg_ctl detaches the server: stop it even when the test JVM is told to exit mid-run.
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
              DATABASE));
      return server;
    } catch (IOException | RuntimeException | InterruptedException e) {
      server.close();
      throw e;
    }
  }

  int port() {
    return port;
  }

  /** A JDBC URL of the test database, user included. */
  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE + "?user=" + USER;
  }

  /** A data source that opens a new connection on every call. */
  PGSimpleDataSource dataSource() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(jdbcUrl());
    dataSource.setConnectTimeout(5);
    return dataSource;
  }

  /**
   * Stops the server abruptly ({@code pg_ctl stop -m immediate}): every backend is killed without a
   * checkpoint, as in a crash; the next start runs crash recovery.
   */
  void crash() throws IOException, InterruptedException {
    run(List.of(tool("pg_ctl"), "-D", data.toString(), "-m", "immediate", "-w", "stop"));
  }

  /** Starts the server again (after {@link #crash()}) and waits until it accepts connections. */
  void startServer() throws IOException, InterruptedException {
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
            "-p "
                + port
                + " -k "
                + base
                + " -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
            "start"));
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(onExit);
    } catch (IllegalStateException e) {
      return; // the JVM is exiting: the hook does it
    }
    stopAndDelete();
  }

  private void stopAndDelete() {
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
    Path output = Files.createTempFile("relayer-chaos-pg", ".out");
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
                + Files.readString(output, UTF_8).strip());
      }
    } finally {
      Files.deleteIfExists(output);
    }
  }

  private static Path binaries() {
    String configured = System.getProperty("relayer.chaos.pgBin", System.getenv("RELAYER_PG_BIN"));
    if (configured != null && !configured.isBlank()) {
      return requireInitdb(Path.of(configured.trim()));
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
        "no PostgreSQL binaries: set -Drelayer.chaos.pgBin or RELAYER_PG_BIN to the directory"
            + " holding initdb and pg_ctl");
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
