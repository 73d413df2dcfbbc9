package dev.relayer.micrometer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.dispatch.DispatchOptions;
import dev.relayer.dispatch.HealthReport;
import dev.relayer.dispatch.HealthStatus;
import dev.relayer.dispatch.Relayer;
import dev.relayer.dispatch.RelayerHealth;
import dev.relayer.transport.rabbitmq.RabbitMqTransport;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * A real outage: a RabbitMQ transport pointed at a local port where nothing listens, so every send
 * is refused. One message fails for longer than the longest backoff step; every health read from
 * the failing-age threshold on is at least degraded, through Relayer (whose health counts its
 * dispatcher's sends) and through a health built by hand without a dispatcher, and the shipped
 * alert expressions on failing rows and failing sends read values that hold through the backoff.
 */
class OutageHealthIT {

  private static final Path ROOT = Path.of(System.getProperty("relayer.root", ".."));

  /** The one form the rules below use: {@code max by (store) (metric) > threshold}. */
  private static final Pattern EXPR =
      Pattern.compile("^max by \\(store\\) \\((relayer_[a-z_]+)\\) > ([0-9.]+)$");

  private static final Duration FAILING_AGE_DEGRADED_AT = Duration.ofSeconds(3);
  private static final Duration BACKOFF_MAX = Duration.ofSeconds(4);
  private static final Duration OUTAGE = Duration.ofSeconds(20);

  private MetricsFixture fixture;

  @BeforeEach
  void setUp() {
    fixture = new MetricsFixture();
  }

  @AfterEach
  void tearDown() throws Exception {
    fixture.close();
  }

  private static int unusedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void
      aMessageRefusedThroughItsBackoffIsNeverHealthyAfterTheFailingAgeThresholdWithOrWithoutADispatcher()
          throws Exception {
    RabbitMqTransport refused =
        RabbitMqTransport.builder()
            .uri("amqp://guest:guest@127.0.0.1:" + unusedPort() + "/")
            .build();
    Relayer relayer =
        fixture.track(
            fixture
                .fastRelayer(refused)
                .dispatch(
                    DispatchOptions.builder()
                        .claimDuration(Duration.ofSeconds(5))
                        .sendTimeout(Duration.ofSeconds(2))
                        .maxAttempts(1000)
                        .backoffInitial(Duration.ofMillis(500))
                        .backoffMax(BACKOFF_MAX)
                        .shutdownTimeout(Duration.ofSeconds(5))
                        .build())
                .withoutLanes()
                .health(h -> h.failingAgeThresholds(FAILING_AGE_DEGRADED_AT, Duration.ofHours(1)))
                .build());
    RelayerHealth byHand =
        RelayerHealth.builder(relayer.store())
            .failingAgeThresholds(FAILING_AGE_DEGRADED_AT, Duration.ofHours(1))
            .build();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RelayerMetrics metrics = fixture.track(RelayerMetrics.builder(relayer, registry).build());
    Map<String, String> alerts = alertExpressions();
    Matcher rowsFailing = EXPR.matcher(alerts.get("RelayerRowsFailing"));
    Matcher sendsFailing = EXPR.matcher(alerts.get("RelayerSendsFailing"));
    assertThat(rowsFailing.matches()).as(alerts.get("RelayerRowsFailing")).isTrue();
    assertThat(sendsFailing.matches()).as(alerts.get("RelayerSendsFailing")).isTrue();
    relayer.start();

    Instant start = Instant.now();
    relayer
        .dsl()
        .transaction(
            tx -> relayer.store().enqueue(tx.dsl(), MetricsFixture.message("rabbitmq", "orders")));
    // Clock skew between the JVM and the server, and the first send's latency.
    Instant threshold = start.plus(FAILING_AGE_DEGRADED_AT).plusSeconds(1);
    List<String> healthyAfterThreshold = new ArrayList<>();
    double lastAge = 0;
    int reads = 0;
    while (Instant.now().isBefore(start.plus(OUTAGE))) {
      Instant now = Instant.now();
      HealthReport withDispatcher = relayer.health();
      HealthReport withoutDispatcher = byHand.check(relayer.dsl());
      assertThat(metrics.refresh()).isTrue();
      String scrape = registry.scrape();
      if (now.isAfter(threshold)) {
        reads++;
        for (HealthReport report : List.of(withDispatcher, withoutDispatcher)) {
          if (report.status() == HealthStatus.HEALTHY) {
            healthyAfterThreshold.add(
                Duration.between(start, now) + " " + report.transports() + " " + report);
          }
          assertThat(report.failing()).isEqualTo(1);
          assertThat(report.reasons()).anyMatch(r -> r.contains("failingAgeDegradedAt=3s"));
        }
        double age = value(scrape, rowsFailing.group(1));
        assertThat(age).as("the failing age grows through the backoff").isGreaterThan(lastAge);
        assertThat(age).isGreaterThanOrEqualTo((double) FAILING_AGE_DEGRADED_AT.toSeconds());
        lastAge = age;
        assertThat(value(scrape, sendsFailing.group(1)))
            .as("the transport is failing at every read, in its backoff too")
            .isGreaterThanOrEqualTo(1);
      }
      Thread.sleep(200);
    }

    assertThat(healthyAfterThreshold).isEmpty();
    assertThat(reads).isGreaterThan(40);
    HealthReport last = relayer.health();
    assertThat(last.deadRows()).isZero();
    assertThat(last.failing()).isEqualTo(1);
    assertThat(last.oldestFailingAge().orElseThrow())
        .as("the outage outlasted the longest backoff step several times")
        .isGreaterThan(BACKOFF_MAX.multipliedBy(3));
  }

  /** The alert rules' expressions, by alert name. */
  private static Map<String, String> alertExpressions() throws IOException {
    Map<?, ?> doc =
        new Yaml().load(Files.readString(ROOT.resolve("docs/ops/relayer-alerts.yml"), UTF_8));
    Map<String, String> exprs = new java.util.TreeMap<>();
    for (Object group : (List<?>) doc.get("groups")) {
      for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
        Map<?, ?> r = (Map<?, ?>) rule;
        exprs.put((String) r.get("alert"), ((String) r.get("expr")).strip());
      }
    }
    return exprs;
  }

  /** {@code max by (store)} of {@code metric} in a Prometheus scrape (one store here). */
  private static double value(String scrape, String metric) {
    double max = Double.NaN;
    for (String line : scrape.lines().toList()) {
      if (line.startsWith(metric + "{") || line.startsWith(metric + " ")) {
        assertThat(line).contains("store=\"");
        double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        max = Double.isNaN(max) ? v : Math.max(max, v);
      }
    }
    assertThat(max).as(metric + " in the scrape").isNotNaN();
    return max;
  }
}
