package dev.relayer.transport.kafka;

import dev.relayer.testkit.transport.SelfSignedCertificate;
import dev.relayer.testkit.transport.TcpProxy;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node Kafka broker in KRaft mode (broker and controller in one process), run as a
 * child JVM ({@code kafka.Kafka}) from the Maven Central artifacts on the test classpath, with its
 * log directory in a temporary directory. A test can kill it (SIGKILL) and start it again on the
 * same ports and data.
 *
 * <p>Started with {@link #startWithTls()}, it also listens for TLS ({@link #tlsBootstrapServers()})
 * with a key and a self-signed certificate for {@code 127.0.0.1} made in that directory ({@link
 * #certificate()}), which only a client given that certificate trusts.
 *
 * <p>Started with {@link #startBehindProxy()}, clients reach it through a {@link TcpProxy} ({@link
 * #proxy()}) that they are sent back to by the broker's metadata too, so that cutting or stalling
 * the proxy takes the broker away from them; a second listener ({@link #directBootstrapServers()})
 * stays reachable for a test's own admin client and consumer.
 *
 * <p>The child's classpath is the system property {@value #CLASSPATH_PROPERTY}, which the build
 * sets, else this JVM's {@code java.class.path}.
 */
public final class KafkaBrokerProcess implements AutoCloseable {

  public static final String CLASSPATH_PROPERTY = "relayer.kafka.broker.classpath";

  private final Path dir;
  private final Path config;
  private final int port;
  private final int tlsPort;
  private final SelfSignedCertificate certificate;
  private final TcpProxy proxy;
  private final int directPort;
  private Process process;

  private KafkaBrokerProcess(
      Path dir,
      int port,
      int controllerPort,
      int tlsPort,
      SelfSignedCertificate certificate,
      TcpProxy proxy,
      int directPort)
      throws IOException {
    this.dir = dir;
    this.port = port;
    this.tlsPort = tlsPort;
    this.certificate = certificate;
    this.proxy = proxy;
    this.directPort = directPort;
    this.config = dir.resolve("server.properties");
    String listeners = "PLAINTEXT://127.0.0.1:" + port;
    String advertised = listeners;
    String protocols = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT";
    String interBroker = "PLAINTEXT";
    Properties properties = new Properties();
    if (proxy != null) {
      // Clients are sent to the proxy; the broker and the test's admin use DIRECT.
      advertised = "PLAINTEXT://127.0.0.1:" + proxy.port();
      listeners += ",DIRECT://127.0.0.1:" + directPort;
      advertised += ",DIRECT://127.0.0.1:" + directPort;
      protocols += ",DIRECT:PLAINTEXT";
      interBroker = "DIRECT";
    }
    if (certificate != null) {
      listeners += ",SSL://127.0.0.1:" + tlsPort;
      advertised += ",SSL://127.0.0.1:" + tlsPort;
      protocols += ",SSL:SSL";
      properties.put("ssl.keystore.location", certificate.keystore().toString());
      properties.put("ssl.keystore.type", "PKCS12");
      properties.put("ssl.keystore.password", SelfSignedCertificate.PASSWORD);
      properties.put("ssl.key.password", SelfSignedCertificate.PASSWORD);
    }
    properties.put("process.roles", "broker,controller");
    properties.put("node.id", "1");
    properties.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    properties.put("listeners", listeners + ",CONTROLLER://127.0.0.1:" + controllerPort);
    properties.put("advertised.listeners", advertised);
    properties.put("controller.listener.names", "CONTROLLER");
    properties.put("inter.broker.listener.name", interBroker);
    properties.put("listener.security.protocol.map", protocols);
    properties.put("log.dirs", dir.resolve("data").toString());
    properties.put("num.partitions", "1");
    properties.put("auto.create.topics.enable", "false");
    properties.put("offsets.topic.replication.factor", "1");
    properties.put("offsets.topic.num.partitions", "1");
    properties.put("transaction.state.log.replication.factor", "1");
    properties.put("transaction.state.log.min.isr", "1");
    properties.put("share.coordinator.state.topic.replication.factor", "1");
    properties.put("share.coordinator.state.topic.min.isr", "1");
    properties.put("group.initial.rebalance.delay.ms", "0");
    try (Writer writer = Files.newBufferedWriter(config)) {
      properties.store(writer, "single-node KRaft broker for Relayer's tests");
    }
  }

  /** Formats a fresh log directory and starts the broker; returns once it accepts connections. */
  public static KafkaBrokerProcess start() throws IOException, InterruptedException {
    return start(false, false);
  }

  /** As {@link #start()}, with a TLS listener too, whose key and certificate are made first. */
  public static KafkaBrokerProcess startWithTls() throws IOException, InterruptedException {
    return start(true, false);
  }

  /** As {@link #start()}, with clients sent through {@link #proxy()}. */
  public static KafkaBrokerProcess startBehindProxy() throws IOException, InterruptedException {
    return start(false, true);
  }

  private static KafkaBrokerProcess start(boolean tls, boolean proxied)
      throws IOException, InterruptedException {
    int port;
    int controllerPort;
    int tlsPort;
    int directPort;
    try (ServerSocket a = new ServerSocket(0);
        ServerSocket b = new ServerSocket(0);
        ServerSocket c = new ServerSocket(0);
        ServerSocket d = new ServerSocket(0)) {
      port = a.getLocalPort();
      controllerPort = b.getLocalPort();
      tlsPort = tls ? c.getLocalPort() : 0;
      directPort = proxied ? d.getLocalPort() : 0;
    }
    Path dir = Files.createTempDirectory("relayer-kafka-it-");
    TcpProxy proxy = proxied ? TcpProxy.start("127.0.0.1", port) : null;
    KafkaBrokerProcess broker;
    try {
      SelfSignedCertificate certificate =
          tls ? SelfSignedCertificate.create(Files.createDirectory(dir.resolve("tls"))) : null;
      broker =
          new KafkaBrokerProcess(
              dir, port, controllerPort, tlsPort, certificate, proxy, directPort);
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (proxy != null) {
        proxy.close();
      }
      deleteTree(dir);
      throw e;
    }
    try {
      broker.format();
      broker.startProcess();
      return broker;
    } catch (IOException | InterruptedException | RuntimeException e) {
      broker.close();
      throw e;
    }
  }

  /** The broker's {@code bootstrap.servers}: its loopback address and port, or its proxy's. */
  public String bootstrapServers() {
    return "127.0.0.1:" + (proxy == null ? port : proxy.port());
  }

  /** The {@code bootstrap.servers} that bypass the proxy of {@link #startBehindProxy()}. */
  public String directBootstrapServers() {
    return "127.0.0.1:" + (proxy == null ? port : directPort);
  }

  /** The proxy in front of a broker of {@link #startBehindProxy()}. */
  public TcpProxy proxy() {
    if (proxy == null) {
      throw new IllegalStateException("the broker was started without a proxy");
    }
    return proxy;
  }

  /** The {@code bootstrap.servers} of the TLS listener (needs {@code security.protocol=SSL}). */
  public String tlsBootstrapServers() {
    if (tlsPort == 0) {
      throw new IllegalStateException("the broker was started without TLS");
    }
    return "127.0.0.1:" + tlsPort;
  }

  /**
   * The key and self-signed certificate of the TLS listener: {@link
   * SelfSignedCertificate#certificate()} and {@link SelfSignedCertificate#truststore()} are what a
   * client needs to trust it.
   */
  public SelfSignedCertificate certificate() {
    if (certificate == null) {
      throw new IllegalStateException("the broker was started without TLS");
    }
    return certificate;
  }

  private void format() throws IOException, InterruptedException {
    Process format =
        java(
                "kafka.tools.StorageTool",
                "format",
                "-t",
                Uuid.randomUuid().toString(),
                "-c",
                config.toString())
            .start();
    if (!format.waitFor(60, TimeUnit.SECONDS)) {
      format.destroyForcibly();
      throw new IllegalStateException("formatting the Kafka log directory took over 60 s");
    }
    if (format.exitValue() != 0) {
      throw new IllegalStateException(
          "formatting the Kafka log directory failed; see " + dir.resolve("broker.log"));
    }
  }

  /** Starts the broker on its ports and data; returns once it accepts connections. */
  void startProcess() throws IOException, InterruptedException {
    if (process != null) {
      return;
    }
    process = java("kafka.Kafka", config.toString()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        int exit = process.exitValue();
        process = null;
        throw new IllegalStateException(
            "the Kafka broker exited with " + exit + "; see " + dir.resolve("broker.log"));
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        return;
      } catch (IOException e) {
        Thread.sleep(100);
      }
    }
    kill();
    throw new IllegalStateException("the Kafka broker did not listen within 90 s");
  }

  /** Kills the broker (SIGKILL), as a crash would, and waits until it is gone. */
  void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
      process = null;
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (proxy != null) {
      proxy.close();
    }
    kill();
    deleteTree(dir);
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private ProcessBuilder java(String mainClass, String... arguments) {
    String classpath = System.getProperty(CLASSPATH_PROPERTY);
    if (classpath == null || classpath.isBlank()) {
      classpath = System.getProperty("java.class.path");
    }
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xms128m");
    command.add("-Xmx768m");
    command.add("-XX:+UseSerialGC");
    command.add("-Djava.awt.headless=true");
    command.add("-cp");
    command.add(classpath);
    command.add(mainClass);
    command.addAll(List.of(arguments));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("broker.log").toFile()));
  }
}
