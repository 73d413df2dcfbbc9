package dev.relayer.micrometer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.Relayer;
import dev.relayer.transport.memory.InMemoryTransport;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.json.JsonMapper;

/**
 * The operations kit cannot drift from the code: {@code docs/observability.md}'s meter table names
 * exactly the meters {@link RelayerMetrics} registers (driven by real dispatch so that every meter
 * exists), and every metric the Grafana dashboard and the Prometheus alert rules name is one of
 * them, as a real Prometheus registry writes it.
 */
class ObservabilityDocsIT {

  private static final Path ROOT = Path.of(System.getProperty("relayer.root", ".."));
  private static final Pattern METRIC = Pattern.compile("\\brelayer_[a-z0-9_]+");
  private static final Pattern TABLE_ROW = Pattern.compile("^\\| `(relayer\\.[a-z.]+)` \\|");
  private static final List<String> SUFFIXES =
      List.of(
          "total",
          "seconds",
          "seconds_count",
          "seconds_sum",
          "seconds_max",
          "seconds_bucket",
          "count",
          "sum",
          "max",
          "bucket");

  private static MetricsFixture fixture;
  private static PrometheusMeterRegistry registry;
  private static String doc;

  @BeforeAll
  static void driveEveryMeter() throws IOException {
    doc = Files.readString(ROOT.resolve("docs/observability.md"), UTF_8);
    fixture = new MetricsFixture();
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    InMemoryTransport ok = InMemoryTransport.named("ok");
    InMemoryTransport poison =
        InMemoryTransport.named("poison").rejectPermanently(m -> true, "no such queue");
    Relayer relayer =
        fixture.track(fixture.fastRelayer(ok, poison).lanes(MetricsFixture.fastLanes()).build());
    RelayerMetrics metrics = fixture.track(RelayerMetrics.builder(relayer, registry).build());
    relayer.start();
    relayer
        .dsl()
        .transaction(
            tx -> {
              relayer.store().enqueue(tx.dsl(), MetricsFixture.message("ok", "orders"));
              relayer.store().enqueue(tx.dsl(), MetricsFixture.message("poison", "orders"));
              relayer
                  .store()
                  .enqueue(tx.dsl(), MetricsFixture.ordered("poison", "orders", "customer-1"));
            });
    UUID id = UUID.randomUUID();
    relayer.store().tryRecordInbox(fixture.dsl, "billing", id);
    relayer.store().tryRecordInbox(fixture.dsl, "billing", id);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                Search.in(registry).name(MeterNames.SENT).counter() != null
                    && Search.in(registry).name(MeterNames.DEAD).counter() != null
                    && Search.in(registry).name(MeterNames.PARKED).counter() != null);
    assertThat(metrics.refresh()).isTrue();
  }

  @AfterAll
  static void tearDown() throws Exception {
    fixture.close();
  }

  @Test
  void theMeterTableNamesExactlyTheMetersRelayerMetricsRegisters() {
    Set<String> registered =
        registry.getMeters().stream()
            .map(Meter::getId)
            .map(Meter.Id::getName)
            .collect(Collectors.toCollection(TreeSet::new));

    assertThat(tableNames()).isEqualTo(registered);
    assertThat(registered).isEqualTo(new TreeSet<>(MeterNames.ALL));
  }

  @Test
  void everyMetricTheDashboardNamesIsInTheTableAndInTheScrape() throws IOException {
    Object dashboard =
        JsonMapper.builder()
            .build()
            .readValue(
                Files.readString(ROOT.resolve("docs/ops/relayer-dashboard.json"), UTF_8),
                Object.class);
    Set<String> named = metricsIn(dashboard);

    assertThat(named)
        .contains(
            "relayer_outbox_eligible",
            "relayer_outbox_oldest_age_seconds",
            "relayer_outbox_sent_total",
            "relayer_outbox_failed_total",
            "relayer_outbox_dead_rows",
            "relayer_outbox_parked_keys",
            "relayer_outbox_commit_to_send_seconds_bucket",
            "relayer_table_dead_tuples",
            "relayer_xmin_horizon_age");
    assertKnown(named);
  }

  @Test
  void everyMetricTheAlertRulesNameIsInTheTableAndInTheScrapeAndEveryRuleIsExplained()
      throws IOException {
    Object rules =
        new Yaml().load(Files.readString(ROOT.resolve("docs/ops/relayer-alerts.yml"), UTF_8));
    Set<String> named = metricsIn(rules);
    List<String> alerts = new ArrayList<>();
    collectAlerts(rules, alerts);

    assertThat(alerts)
        .contains(
            "RelayerOldestEligibleAgeHigh",
            "RelayerDeadRowsGrowing",
            "RelayerParkedKeys",
            "RelayerNoSweeperLeaseHolder",
            "RelayerXminHorizonHeld",
            "RelayerRowsFailing",
            "RelayerSendsFailing");
    for (String alert : alerts) {
      assertThat(doc).as("observability.md explains " + alert).contains("**" + alert + "**");
    }
    assertKnown(named);
  }

  /** Each name is in the scrape, and is a table meter's name in one of its Prometheus forms. */
  private static void assertKnown(Set<String> named) {
    Set<String> scraped = scrapedNames();
    Set<String> table = tableNames();
    assertThat(named).isNotEmpty();
    for (String name : named) {
      assertThat(scraped).as("the scrape has " + name).contains(name);
      assertThat(table.stream().anyMatch(meter -> isPrometheusFormOf(name, meter)))
          .as(name + " is a meter of the table")
          .isTrue();
    }
  }

  private static boolean isPrometheusFormOf(String prometheus, String meter) {
    String base = meter.replace('.', '_');
    return prometheus.equals(base)
        || SUFFIXES.stream().anyMatch(s -> prometheus.equals(base + "_" + s));
  }

  /** The first column of the table in the section {@code ## Meters}. */
  private static Set<String> tableNames() {
    Set<String> names = new TreeSet<>();
    int from = doc.indexOf("\n## Meters\n");
    int to = doc.indexOf("\n## ", from + 1);
    assertThat(from).as("observability.md has a section ## Meters").isNotNegative();
    for (String line : doc.substring(from, to < 0 ? doc.length() : to).split("\n", -1)) {
      Matcher m = TABLE_ROW.matcher(line);
      if (m.find()) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  private static Set<String> scrapedNames() {
    Set<String> names = new TreeSet<>();
    for (String line : registry.scrape().split("\n", -1)) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int end = line.indexOf('{');
      names.add(end < 0 ? line.substring(0, line.indexOf(' ')) : line.substring(0, end));
    }
    return names;
  }

  /** Every {@code relayer_…} name in the strings of a parsed JSON or YAML document. */
  private static Set<String> metricsIn(Object node) {
    Set<String> names = new TreeSet<>();
    walk(node, names);
    return names;
  }

  private static void walk(Object node, Set<String> names) {
    if (node instanceof Map<?, ?> map) {
      map.values().forEach(v -> walk(v, names));
    } else if (node instanceof List<?> list) {
      list.forEach(v -> walk(v, names));
    } else if (node instanceof String text) {
      Matcher m = METRIC.matcher(text);
      while (m.find()) {
        names.add(m.group());
      }
    }
  }

  private static void collectAlerts(Object node, List<String> alerts) {
    if (node instanceof Map<?, ?> map) {
      if (map.get("alert") instanceof String name) {
        alerts.add(name);
      }
      map.values().forEach(v -> collectAlerts(v, alerts));
    } else if (node instanceof List<?> list) {
      list.forEach(v -> collectAlerts(v, alerts));
    }
  }
}
