package dev.relayer.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;

/**
 * Finds a PostgreSQL for tests and for code generation, once per JVM:
 *
 * <ol>
 *   <li>{@value #URL_VARIABLE}, a JDBC URL with user (and password if needed), when set — for
 *       example {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres};
 *   <li>else a Testcontainers PostgreSQL 17 when a Docker engine answers;
 *   <li>else an embedded PostgreSQL 17 (io.zonky.test), so that a machine with only Java and Maven
 *       builds and tests Relayer.
 * </ol>
 *
 * <p>The server is shared by the whole JVM; tests isolate themselves with {@link TestDatabase},
 * which creates a fresh database and drops it on close. Containers and embedded servers stop when
 * the JVM exits.
 */
public final class TestPostgres {

  /** The environment variable (or system property) naming an existing PostgreSQL. */
  public static final String URL_VARIABLE = "RELAYER_PG_URL";

  private static final Logger log = LoggerFactory.getLogger(TestPostgres.class);
  private static @Nullable PostgresServer server;
  private static @Nullable AutoCloseable owned;
  private static @Nullable Thread stopHook;

  private TestPostgres() {}

  /** The JVM's shared server, started on first use. */
  public static synchronized PostgresServer server() {
    if (server == null) {
      server = resolve();
      log.info("Relayer tests use PostgreSQL from {}", server.source());
    }
    return server;
  }

  private static PostgresServer resolve() {
    String url = System.getProperty(URL_VARIABLE, System.getenv(URL_VARIABLE));
    if (url != null && !url.isBlank()) {
      return fromUrl(url.trim());
    }
    if (dockerAnswers()) {
      return startContainer();
    }
    return startEmbedded();
  }

  static PostgresServer fromUrl(String url) {
    Properties properties = org.postgresql.Driver.parseURL(url, new Properties());
    if (properties == null) {
      throw new IllegalStateException(
          URL_VARIABLE + " is not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/db?user=…)");
    }
    String user = properties.getProperty("user", System.getProperty("user.name"));
    return new PostgresServer(URL_VARIABLE, url, user, properties.getProperty("password"));
  }

  private static boolean dockerAnswers() {
    if (!dockerMayBeThere()) {
      // Asking Testcontainers would log an ERROR for a machine that simply has no Docker.
      log.debug("No Docker engine configured or socket found: not trying Testcontainers");
      return false;
    }
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (Throwable e) {
      log.debug("No Docker engine answers: {}", e.toString());
      return false;
    }
  }

  /**
   * Whether a Docker engine may answer: DOCKER_HOST or Testcontainers' own configuration names one,
   * or a Docker socket exists at one of the usual places.
   */
  private static boolean dockerMayBeThere() {
    if (System.getenv("DOCKER_HOST") != null) {
      return true;
    }
    String home = System.getProperty("user.home", "");
    String runtime = System.getenv("XDG_RUNTIME_DIR");
    List<Path> places = new ArrayList<>();
    places.add(Path.of(home, ".testcontainers.properties"));
    places.add(Path.of("/var/run/docker.sock"));
    places.add(Path.of(home, ".docker", "run", "docker.sock"));
    places.add(Path.of(home, ".docker", "desktop", "docker.sock"));
    places.add(Path.of(home, ".colima", "default", "docker.sock"));
    places.add(Path.of(home, ".rd", "docker.sock"));
    if (runtime != null) {
      places.add(Path.of(runtime, "docker.sock"));
      places.add(Path.of(runtime, "podman", "podman.sock"));
    }
    return places.stream().anyMatch(Files::exists)
        || System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win");
  }

  private static PostgresServer startContainer() {
    PostgreSQLContainer<?> container = new PostgreSQLContainer<>("postgres:17-alpine");
    container.start();
    own(container::stop);
    return new PostgresServer(
        "testcontainers", container.getJdbcUrl(), container.getUsername(), container.getPassword());
  }

  private static PostgresServer startEmbedded() {
    try {
      EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
      own(postgres);
      return new PostgresServer(
          "embedded", postgres.getJdbcUrl("postgres", "postgres"), "postgres", null);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start an embedded PostgreSQL", e);
    }
  }

  /** Stops {@code resource} when the JVM exits, unless {@link #stop()} does it first. */
  private static void own(AutoCloseable resource) {
    owned = resource;
    stopHook = new Thread(TestPostgres::closeOwned, "relayer-testkit-stop");
    Runtime.getRuntime().addShutdownHook(stopHook);
  }

  /**
   * Stops a server this class started (a container or an embedded PostgreSQL) now, instead of at
   * JVM exit; the next {@link #server()} resolves again. Needed where the JVM outlives the classes,
   * such as a build plugin running code in its own class loader.
   */
  public static synchronized void stop() {
    if (stopHook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(stopHook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running already
      }
      stopHook = null;
    }
    closeOwned();
    server = null;
  }

  private static synchronized void closeOwned() {
    AutoCloseable resource = owned;
    owned = null;
    if (resource != null) {
      try {
        resource.close();
      } catch (Exception e) {
        log.warn("Test PostgreSQL did not stop cleanly", e);
      }
    }
  }
}
