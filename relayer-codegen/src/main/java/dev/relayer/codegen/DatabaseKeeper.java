package dev.relayer.codegen;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import dev.relayer.testkit.TestDatabase;
import dev.relayer.testkit.TestPostgres;
import java.io.File;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the {@linkplain CodegenDatabase database jOOQ's code generator reads} for the steps of a
 * build between {@code provide} and {@code remove}; the protocol is described in the {@linkplain
 * dev.relayer.codegen package documentation}. Its main method takes a verb:
 *
 * <ul>
 *   <li>{@code provide FILE SCHEMA}: starts a keeper JVM, waits until it has written FILE and
 *       returns;
 *   <li>{@code keep FILE SCHEMA}: the keeper JVM itself;
 *   <li>{@code remove FILE}: has the keeper drop the database, delete FILE and stop.
 * </ul>
 */
public final class DatabaseKeeper {

  /** Key of the database's JDBC URL in the keeper's file. */
  public static final String URL = "relayer.codegen.jdbc.url";

  /** Key of the user name in the keeper's file. */
  public static final String USER = "relayer.codegen.jdbc.user";

  /** Key of the password in the keeper's file; empty when the server needs none. */
  public static final String PASSWORD = "relayer.codegen.jdbc.password";

  /** Key of the keeper's process id in the keeper's file. */
  public static final String PID = "relayer.codegen.keeper.pid";

  /** Key of the keeper's loopback port that a remove connects to. */
  public static final String PORT = "relayer.codegen.keeper.port";

  /**
   * How long provide waits for the database: long enough for a first Testcontainers image pull or
   * the first extraction of the embedded server.
   */
  static final Duration PROVIDE_TIMEOUT = Duration.ofMinutes(10);

  /** How long remove waits for the keeper to drop the database and stop the server. */
  static final Duration REMOVE_TIMEOUT = Duration.ofMinutes(2);

  private static final String REMOVED = "removed\n";
  private static final String USAGE =
      "usage: DatabaseKeeper provide FILE SCHEMA | keep FILE SCHEMA | remove FILE";
  private static final Logger log = LoggerFactory.getLogger(DatabaseKeeper.class);

  private DatabaseKeeper() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    String verb = args.length > 0 ? args[0] : "";
    switch (verb) {
      case "provide" -> {
        requireArguments(args, 3);
        provide(Path.of(args[1]), args[2]);
      }
      case "keep" -> {
        requireArguments(args, 3);
        // Exit explicitly: a client library's non-daemon thread must not keep the keeper alive.
        try {
          keep(Path.of(args[1]), args[2]);
        } catch (Throwable e) {
          log.error("The codegen database keeper failed", e);
          System.exit(1);
        }
        System.exit(0);
      }
      case "remove" -> {
        requireArguments(args, 2);
        remove(Path.of(args[1]));
      }
      default -> throw new IllegalArgumentException(USAGE);
    }
  }

  private static void requireArguments(String[] args, int count) {
    if (args.length != count) {
      throw new IllegalArgumentException(USAGE);
    }
  }

  /**
   * Starts the keeper JVM on this JVM's class path and waits until it has written {@code file}. The
   * keeper's output goes to {@link #logFile}.
   */
  static void provide(Path file, String schema) throws IOException, InterruptedException {
    Files.deleteIfExists(file);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Path logFile = logFile(file);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // The environment is inherited; the server may also be named as a system property.
    String url = System.getProperty(TestPostgres.URL_VARIABLE);
    if (url != null) {
      command.add("-D" + TestPostgres.URL_VARIABLE + "=" + url);
    }
    command.add("-cp");
    command.add(classPath());
    command.add(DatabaseKeeper.class.getName());
    command.add("keep");
    command.add(file.toAbsolutePath().toString());
    command.add(schema);
    Process keeper =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(logFile.toFile())
            .start();
    keeper.getOutputStream().close();
    long deadline = System.nanoTime() + PROVIDE_TIMEOUT.toNanos();
    while (!Files.exists(file)) {
      if (keeper.waitFor(100, TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            "The codegen database keeper exited with "
                + keeper.exitValue()
                + " before the database was ready; its output ("
                + logFile
                + "):\n"
                + Files.readString(logFile));
      }
      if (System.nanoTime() - deadline > 0) {
        keeper.destroy();
        throw new IllegalStateException(
            "The codegen database was not ready within "
                + PROVIDE_TIMEOUT
                + "; the keeper's output is in "
                + logFile);
      }
    }
  }

  /**
   * The class path of this JVM's code: exec-maven-plugin's {@code java} goal runs it in a class
   * loader of its own, whose URLs are the project's class path; a plain JVM has it in {@code
   * java.class.path}.
   */
  private static String classPath() {
    if (DatabaseKeeper.class.getClassLoader() instanceof URLClassLoader loader) {
      List<String> entries = new ArrayList<>();
      for (URL url : loader.getURLs()) {
        try {
          entries.add(Path.of(url.toURI()).toString());
        } catch (URISyntaxException e) {
          throw new IllegalStateException("Not a file on the class path: " + url, e);
        }
      }
      return String.join(File.pathSeparator, entries);
    }
    return System.getProperty("java.class.path");
  }

  /**
   * The keeper: creates the database, writes {@code file}, and waits for a remove, or for the
   * build's JVM (its parent) to end; then drops the database, stops a server it started, deletes
   * {@code file}, and only then answers the remove.
   */
  static void keep(Path file, String schema) throws IOException {
    ProcessHandle build =
        ProcessHandle.current()
            .parent()
            .orElseThrow(() -> new IllegalStateException("The keeper has no build to outlive"));
    try (ServerSocket control = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      // A build that ends without a remove (it failed, stopped before process-sources, or was
      // killed) closes the control socket, and the keeper cleans up as for a remove.
      CompletableFuture<?> unused = build.onExit().thenRun(() -> closeQuietly(control));
      Optional<Socket> remover;
      try (TestDatabase database = CodegenDatabase.create(schema)) {
        Properties properties = new Properties();
        properties.setProperty(URL, database.jdbcUrl());
        properties.setProperty(USER, database.user());
        properties.setProperty(PASSWORD, database.password() == null ? "" : database.password());
        properties.setProperty(PID, Long.toString(ProcessHandle.current().pid()));
        properties.setProperty(PORT, Integer.toString(control.getLocalPort()));
        writeAtomically(file, properties);
        log.info(
            "Codegen database {} ready on the PostgreSQL from {}",
            database.name(),
            database.server().source());
        remover = awaitRemover(control);
        log.info(
            "Codegen database {}: {}",
            database.name(),
            remover.isPresent() ? "remove requested" : "the build ended");
      } finally {
        TestPostgres.stop();
        Files.deleteIfExists(file);
      }
      if (remover.isPresent()) {
        try (Socket socket = remover.get()) {
          socket.getOutputStream().write(REMOVED.getBytes(US_ASCII));
        }
      }
    }
  }

  private static Optional<Socket> awaitRemover(ServerSocket control) throws IOException {
    try {
      return Optional.of(control.accept());
    } catch (SocketException e) {
      if (control.isClosed()) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private static void closeQuietly(ServerSocket control) {
    try {
      control.close();
    } catch (IOException e) {
      log.warn("Could not close the keeper's control socket", e);
    }
  }

  /** Written whole or not at all: provide takes the file's existence for readiness. */
  private static void writeAtomically(Path file, Properties properties) throws IOException {
    Path partial = file.resolveSibling(file.getFileName() + ".partial");
    try (Writer writer = Files.newBufferedWriter(partial, UTF_8)) {
      properties.store(writer, "The database of jOOQ code generation, until the remove step");
    }
    Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * Has the keeper named in {@code file} drop the database and stop, and waits until it has.
   * Without {@code file} there is nothing to remove.
   */
  static void remove(Path file) throws IOException, InterruptedException {
    if (!Files.exists(file)) {
      return;
    }
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, UTF_8)) {
      properties.load(reader);
    }
    long pid = Long.parseLong(properties.getProperty(PID));
    int port = Integer.parseInt(properties.getProperty(PORT));
    String answer;
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(Math.toIntExact(REMOVE_TIMEOUT.toMillis()));
      answer = new String(socket.getInputStream().readAllBytes(), US_ASCII);
    } catch (IOException e) {
      throw new IllegalStateException(
          "The codegen database keeper (pid " + pid + ") did not answer; " + output(file), e);
    }
    if (!answer.equals(REMOVED)) {
      throw new IllegalStateException(
          "The codegen database keeper (pid "
              + pid
              + ") did not remove the database; "
              + output(file));
    }
    Optional<ProcessHandle> keeper = ProcessHandle.of(pid);
    if (keeper.isPresent()) {
      try {
        keeper.get().onExit().get(REMOVE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // The database is gone and the server stopped: a keeper that lingers only costs memory.
        keeper.get().destroyForcibly();
      }
    }
  }

  private static String output(Path file) {
    Path logFile = logFile(file);
    try {
      return "its output (" + logFile + "):\n" + Files.readString(logFile);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read " + logFile, e);
    }
  }

  /** The keeper's output: next to {@code file}, with the extension {@code .log}. */
  static Path logFile(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return file.resolveSibling((dot > 0 ? name.substring(0, dot) : name) + ".log");
  }
}
