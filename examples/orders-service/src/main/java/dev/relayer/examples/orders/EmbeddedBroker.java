package dev.relayer.examples.orders;

import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.qpid.server.SystemLauncher;
import org.apache.qpid.server.SystemLauncherListener;
import org.apache.qpid.server.model.Broker;
import org.apache.qpid.server.model.SystemConfig;
import org.apache.qpid.server.model.port.AmqpPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.amqp.autoconfigure.RabbitConnectionDetails;
import org.springframework.boot.amqp.autoconfigure.RabbitProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.FileSystemUtils;

/**
 * With no RabbitMQ configured ({@code spring.rabbitmq.host}, {@code port} or {@code addresses}), or
 * none reachable where it is configured, the service starts an embedded AMQP 0-9-1 broker (Apache
 * Qpid Broker-J, in memory, user guest) on a free local port and points Spring Boot's RabbitMQ
 * connection at it, so that it runs on a machine with only Java. Relayer's RabbitMQ transport and
 * the {@link Shipping} listener both connect to it. Its queues are gone when the service stops.
 *
 * <p>A demo default: a real service removes this class and the {@code qpid-broker-*} dependencies.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(EmbeddedBroker.NoRabbitMq.class)
class EmbeddedBroker {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedBroker.class);

  @Bean(destroyMethod = "close")
  QpidBroker embeddedAmqpBroker(Environment environment) throws Exception {
    QpidBroker broker = QpidBroker.start();
    String configured = NoRabbitMq.configuredAddress(environment);
    if (configured == null) {
      log.info(
          "no RabbitMQ configured (spring.rabbitmq.host, port or addresses): started an embedded"
              + " AMQP broker on 127.0.0.1:{}",
          broker.port());
    } else {
      log.warn(
          "no RabbitMQ reachable at amqp://{}: started an embedded AMQP broker on 127.0.0.1:{}",
          configured,
          broker.port());
    }
    return broker;
  }

  /** Spring Boot's RabbitMQ connection (user guest, virtual host /), to the embedded broker. */
  @Bean
  RabbitConnectionDetails rabbitConnectionDetails(QpidBroker broker) {
    return () -> List.of(new RabbitConnectionDetails.Address("127.0.0.1", broker.port()));
  }

  /**
   * Relayer's transport, to the embedded broker too: in place of the starter's from {@code
   * relayer.rabbitmq.*}, whose {@code uri} (set, for example, by a {@code RELAYER_RABBITMQ_URI}
   * environment variable) would send to another broker than the one {@link Shipping} consumes from.
   */
  @Bean
  RabbitMqTransport embeddedBrokerTransport(QpidBroker broker) {
    return RabbitMqTransport.builder()
        .uri("amqp://guest:guest@127.0.0.1:" + broker.port() + "/")
        .build();
  }

  /** A running Qpid broker, configured by {@code embedded-broker.json}, and its AMQP port. */
  record QpidBroker(SystemLauncher launcher, Path workDirectory, int port)
      implements AutoCloseable {

    static QpidBroker start() throws Exception {
      Path work = Files.createTempDirectory("orders-service-broker");
      Started started = new Started();
      SystemLauncher launcher = new SystemLauncher(started);
      Map<String, Object> settings = new HashMap<>();
      settings.put(SystemConfig.TYPE, "Memory"); // the broker's configuration, in memory only
      settings.put(SystemConfig.INITIAL_CONFIGURATION_LOCATION, "classpath:embedded-broker.json");
      settings.put(SystemConfig.STARTUP_LOGGED_TO_SYSTEM_OUT, false);
      settings.put("context", Map.of(SystemConfig.QPID_WORK_DIR, work.toString()));
      launcher.startup(settings);
      if (started.error != null) {
        throw started.error;
      }
      Broker<?> container = (Broker<?>) started.system.getContainer();
      int port =
          container.getPorts().stream()
              .filter(AmqpPort.class::isInstance)
              .mapToInt(p -> ((AmqpPort<?>) p).getBoundPort())
              .findFirst()
              .orElseThrow();
      return new QpidBroker(launcher, work, port);
    }

    @Override
    public void close() throws IOException {
      launcher.shutdown();
      FileSystemUtils.deleteRecursively(workDirectory);
    }
  }

  /** Keeps what Qpid reports during start-up: its system configuration, or its error. */
  private static final class Started extends SystemLauncherListener.DefaultSystemLauncherListener {
    volatile SystemConfig<?> system;
    volatile RuntimeException error;

    @Override
    public void onContainerResolve(SystemConfig<?> system) {
      this.system = system;
    }

    @Override
    public void errorOnStartup(RuntimeException error) {
      this.error = error;
    }
  }

  /**
   * Matches when no {@code spring.rabbitmq.host}, {@code port} or {@code addresses} is set, or when
   * nothing accepts a connection at the first configured address within a second.
   */
  static final class NoRabbitMq implements Condition {

    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      String address = configuredAddress(context.getEnvironment());
      return address == null || !reachable(address);
    }

    /** The first configured {@code host:port}, or {@code null} when none is configured. */
    static String configuredAddress(Environment environment) {
      if (!environment.containsProperty("spring.rabbitmq.host")
          && !environment.containsProperty("spring.rabbitmq.port")
          && !environment.containsProperty("spring.rabbitmq.addresses")) {
        return null;
      }
      RabbitProperties rabbit =
          Binder.get(environment).bindOrCreate("spring.rabbitmq", RabbitProperties.class);
      return rabbit.determineAddresses().get(0);
    }

    static boolean reachable(String address) {
      int colon = address.lastIndexOf(':');
      try (Socket socket = new Socket()) {
        socket.connect(
            new InetSocketAddress(
                address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))),
            1000);
        return true;
      } catch (IOException | RuntimeException e) {
        return false;
      }
    }
  }
}
