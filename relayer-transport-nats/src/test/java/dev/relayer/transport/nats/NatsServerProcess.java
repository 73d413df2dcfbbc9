package dev.relayer.transport.nats;

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
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private {@code nats-server -js} child process on a free loopback port, with its JetStream store
 * in a temporary directory, that a test can kill and start again. The binary is {@value
 * #BINARY_VARIABLE} when set, else {@code nats-server} found on {@code PATH}.
 */
final class NatsServerProcess implements AutoCloseable {

  static final String BINARY_VARIABLE = "RELAYER_NATS_SERVER";

  private final Path binary;
  private final Path storeDir;
  private final int port;
  private Process process;

  private NatsServerProcess(Path binary, Path storeDir, int port) {
    this.binary = binary;
    this.storeDir = storeDir;
    this.port = port;
  }

  static NatsServerProcess start() throws IOException, InterruptedException {
    Path binary = findBinary();
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    NatsServerProcess server =
        new NatsServerProcess(binary, Files.createTempDirectory("relayer-nats-it-"), port);
    server.startProcess();
    return server;
  }

  String url() {
    return "nats://127.0.0.1:" + port;
  }

  /** Kills the server (SIGKILL), as a crash would, and waits until it is gone. */
  void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
      process = null;
    }
  }

  /** Starts the server again on the same port and store; returns once it accepts connections. */
  void startProcess() throws IOException, InterruptedException {
    if (process != null) {
      return;
    }
    process =
        new ProcessBuilder(
                binary.toString(),
                "-js",
                "-a",
                "127.0.0.1",
                "-p",
                Integer.toString(port),
                "-sd",
                storeDir.toString())
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(storeDir.resolve("server.log").toFile()))
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "nats-server exited with "
                + process.exitValue()
                + "; see "
                + storeDir.resolve("server.log"));
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        return;
      } catch (IOException e) {
        Thread.sleep(50);
      }
    }
    kill();
    throw new IllegalStateException("nats-server did not listen on port " + port + " within 15 s");
  }

  @Override
  public void close() throws InterruptedException {
    kill();
    try (Stream<Path> paths = Files.walk(storeDir)) {
      paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path findBinary() {
    String configured = System.getenv(BINARY_VARIABLE);
    if (configured != null && !configured.isBlank()) {
      return Paths.get(configured.trim());
    }
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator, -1)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Paths.get(dir, "nats-server");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "nats-server is not on PATH; install it or set "
            + BINARY_VARIABLE
            + " to the binary (searched "
            + List.of(path.split(File.pathSeparator))
            + ")");
  }
}
