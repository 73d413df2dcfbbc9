package dev.relayer.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PgBouncer of the caller's own, in transaction pooling mode, in front of a PostgreSQL server: a
 * child process with a generated configuration in a temporary directory, listening on a free
 * loopback port, authenticating nobody ({@code auth_type = trust}; the server behind it trusts
 * local connections too). Every database name is forwarded to the server's database of that name.
 *
 * <p>The binary is {@value #BINARY_VARIABLE} when set, else {@code pgbouncer} on {@code PATH}, else
 * {@code /usr/sbin/pgbouncer} (Debian's {@code pgbouncer} package). A missing binary fails {@link
 * #start} with a message saying how to install it: a test through PgBouncer never skips silently.
 * PgBouncer refuses to run as root, so when the JVM runs as root it runs as the {@code postgres}
 * user through {@code runuser}, as {@link PrivatePostgres} runs the server.
 */
public final class PgBouncer implements AutoCloseable {

  /** The environment variable naming the {@code pgbouncer} binary. */
  public static final String BINARY_VARIABLE = "RELAYER_PGBOUNCER";

  private final Path dir;
  private final int port;
  private final Process process;

  private PgBouncer(Path dir, int port, Process process) {
    this.dir = dir;
    this.port = port;
    this.process = process;
  }

  /**
   * Starts PgBouncer in transaction pooling mode in front of {@code host:port}, and returns once it
   * accepts connections.
   */
  public static PgBouncer start(String host, int serverPort)
      throws IOException, InterruptedException {
    Path binary = binary();
    boolean root = "root".equals(System.getProperty("user.name"));
    Path dir = Files.createTempDirectory("relayer-pgbouncer-");
    if (root) {
      UserPrincipal postgres =
          dir.getFileSystem()
              .getUserPrincipalLookupService()
              .lookupPrincipalByName(PrivatePostgres.USER);
      Files.setOwner(dir, postgres);
    }
    int port = freePort();
    Path ini = dir.resolve("pgbouncer.ini");
    Files.writeString(
        dir.resolve("userlist.txt"), "\"" + PrivatePostgres.USER + "\" \"\"\n", UTF_8);
    Files.writeString(
        ini,
        String.join(
            "\n",
            "[databases]",
            "* = host=" + host + " port=" + serverPort,
            "",
            "[pgbouncer]",
            "listen_addr = 127.0.0.1",
            "listen_port = " + port,
            "unix_socket_dir =",
            "auth_type = trust",
            "auth_file = " + dir.resolve("userlist.txt"),
            "pool_mode = transaction",
            "max_client_conn = 200",
            "default_pool_size = 20",
            // pgjdbc sends it at start-up; PgBouncer refuses start-up parameters it does not know.
            "ignore_startup_parameters = extra_float_digits",
            "logfile = " + dir.resolve("pgbouncer.log"),
            "pidfile = " + dir.resolve("pgbouncer.pid"),
            ""),
        UTF_8);
    List<String> command = new ArrayList<>();
    if (root) {
      command.addAll(List.of("runuser", "-u", PrivatePostgres.USER, "--"));
    }
    command.add(binary.toString());
    command.add(ini.toString());
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("output.log").toFile()))
            .start();
    PgBouncer bouncer = new PgBouncer(dir, port, process);
    try {
      bouncer.awaitListening();
      return bouncer;
    } catch (IOException | RuntimeException | InterruptedException e) {
      bouncer.close();
      throw e;
    }
  }

  /** The loopback port PgBouncer listens on. */
  public int port() {
    return port;
  }

  /**
   * A JDBC URL to {@code database} through PgBouncer, as user {@code postgres}, with pgjdbc's
   * server-side prepared statements off ({@code prepareThreshold=0}): PgBouncer in transaction mode
   * before 1.21 (and later ones without {@code max_prepared_statements}) cannot keep them.
   */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:"
        + port
        + "/"
        + database
        + "?user="
        + PrivatePostgres.USER
        + "&prepareThreshold=0";
  }

  private void awaitListening() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "pgbouncer exited with " + process.exitValue() + ": " + output());
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        return;
      } catch (IOException e) {
        Thread.sleep(50);
      }
    }
    throw new IllegalStateException(
        "pgbouncer did not listen on port " + port + " within 15 s: " + output());
  }

  private String output() throws IOException {
    StringBuilder text = new StringBuilder();
    for (String name : List.of("output.log", "pgbouncer.log")) {
      Path file = dir.resolve(name);
      if (Files.exists(file)) {
        text.append(Files.readString(file, UTF_8));
      }
    }
    return text.toString().strip();
  }

  /** Stops PgBouncer (and, under {@code runuser}, its child) and deletes its directory. */
  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path binary() {
    String configured = System.getenv(BINARY_VARIABLE);
    if (configured != null && !configured.isBlank()) {
      return Paths.get(configured.trim());
    }
    List<Path> candidates = new ArrayList<>();
    for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator, -1)) {
      if (!entry.isEmpty()) {
        candidates.add(Paths.get(entry, "pgbouncer"));
      }
    }
    candidates.add(Paths.get("/usr/sbin/pgbouncer"));
    for (Path candidate : candidates) {
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "pgbouncer is not installed: the PgBouncer tests need it (Debian/Ubuntu: apt-get install"
            + " pgbouncer), or set "
            + BINARY_VARIABLE
            + " to the binary; searched "
            + candidates);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
