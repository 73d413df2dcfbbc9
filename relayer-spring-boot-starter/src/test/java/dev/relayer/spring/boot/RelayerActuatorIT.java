package dev.relayer.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relayer.dispatch.Relayer;
import dev.relayer.store.NewMessage;
import dev.relayer.store.internal.ErrorFingerprint;
import dev.relayer.store.ops.DeadFilter;
import dev.relayer.store.ops.DeadPage;
import dev.relayer.transport.memory.InMemoryTransport;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code relayer} health indicator and the {@code relayer} endpoint over HTTP, in an
 * application with the actuator and an embedded Tomcat on a random port: status and details, parked
 * keys, the dead-row views, and the operator's actions (on parked keys and dead rows) only when
 * {@code relayer.actuator.operations.enabled=true}.
 */
class RelayerActuatorIT {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @RegisterExtension static final StarterFixture fixture = new StarterFixture();

  private final HttpClient http = HttpClient.newHttpClient();

  /** A Spring Boot application: every auto-configuration, but no broker's and no Liquibase. */
  @SpringBootConfiguration
  @EnableAutoConfiguration(
      excludeName = {
        "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration",
        "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
        "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration"
      })
  @Import({StarterFixture.MemoryTransport.class, PlacedOrders.Config.class})
  static class App {}

  private void withApp(Consumer<ConfigurableApplicationContext> test, String... properties) {
    List<String> all = new ArrayList<>();
    all.add("server.port=0");
    all.add("spring.datasource.url=" + fixture.database.jdbcUrl());
    all.add("spring.datasource.username=" + fixture.database.user());
    all.add(
        "spring.datasource.password="
            + (fixture.database.password() == null ? "" : fixture.database.password()));
    all.add("management.endpoints.web.exposure.include=health,relayer");
    all.add("management.endpoint.health.show-details=always");
    all.add("relayer.maintenance.recovery-delay=1h");
    all.addAll(List.of(properties));
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(App.class).properties(all.toArray(String[]::new)).run()) {
      test.accept(context);
    }
  }

  private HttpResponse<String> get(ConfigurableApplicationContext context, String path) {
    return send(HttpRequest.newBuilder(uri(context, path)).GET());
  }

  private HttpResponse<String> post(
      ConfigurableApplicationContext context, String path, String body) {
    return send(
        HttpRequest.newBuilder(uri(context, path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static URI uri(ConfigurableApplicationContext context, String path) {
    return URI.create(
        "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + path);
  }

  private static JsonNode json(HttpResponse<String> response) {
    return JSON.readTree(response.body());
  }

  /** Parks key {@code key}: its only attempt fails (max-attempts=1 in these tests). */
  private static void park(ConfigurableApplicationContext context, String key) {
    InMemoryTransport memory = context.getBean(InMemoryTransport.class);
    memory.reject(message -> true, "broker says no");
    Relayer relayer = context.getBean(Relayer.class);
    context
        .getBean(TransactionTemplate.class)
        .executeWithoutResult(
            status ->
                relayer
                    .store()
                    .enqueue(
                        context.getBean(DSLContext.class),
                        StarterFixture.ordered(key, "order-of-" + key)));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> relayer.operator().parkedKey(key).isPresent());
    memory.behaveNormally();
  }

  /**
   * Sends messages to {@code destination} that the transport rejects for good, and waits until they
   * are dead rows; returns their bodies.
   */
  private static List<String> bury(
      ConfigurableApplicationContext context, String destination, String error, int count) {
    InMemoryTransport memory = context.getBean(InMemoryTransport.class);
    memory.rejectPermanently(message -> true, error);
    Relayer relayer = context.getBean(Relayer.class);
    long before = relayer.operator().deadCount(DeadFilter.all());
    List<String> bodies = new ArrayList<>();
    context
        .getBean(TransactionTemplate.class)
        .executeWithoutResult(
            status -> {
              for (int i = 0; i < count; i++) {
                String body = destination + "-" + i;
                bodies.add(body);
                relayer
                    .store()
                    .enqueue(
                        context.getBean(DSLContext.class),
                        NewMessage.builder()
                            .transport("memory")
                            .destination(destination)
                            .messageType("OrderPlaced")
                            .body(body.getBytes(StandardCharsets.UTF_8))
                            .build());
              }
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> relayer.operator().deadCount(DeadFilter.all()) == before + count);
    memory.behaveNormally();
    return bodies;
  }

  private static String query(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  @Test
  void deadRowViewsGroupAndListTheDeadRowsWithoutTheActions() {
    withApp(
        context -> {
          bury(context, "payments", "timeout after 30 ms", 2);
          bury(context, "refunds", "no route to exchange refunds", 1);
          String fingerprint = ErrorFingerprint.of("timeout after 30 ms");

          HttpResponse<String> groups = get(context, "/actuator/relayer/dead-groups");

          assertThat(groups.statusCode()).isEqualTo(200);
          JsonNode all = json(groups);
          assertThat(all.path("matching").asLong()).isEqualTo(3);
          assertThat(all.path("groups")).hasSize(2);
          JsonNode first = all.path("groups").get(0);
          assertThat(first.path("fingerprint").asString()).isEqualTo(fingerprint);
          assertThat(first.path("count").asLong()).isEqualTo(2);
          assertThat(first.path("sampleError").asString()).isEqualTo("timeout after 30 ms");
          assertThat(first.path("destinations").get(0).asString()).isEqualTo("payments");

          HttpResponse<String> page =
              get(context, "/actuator/relayer/dead-rows?destination=payments&limit=1");

          assertThat(page.statusCode()).isEqualTo(200);
          JsonNode rows = json(page);
          assertThat(rows.path("rows")).hasSize(1);
          JsonNode row = rows.path("rows").get(0);
          assertThat(row.path("destination").asString()).isEqualTo("payments");
          assertThat(row.path("reason").asString()).isEqualTo("rejected");
          assertThat(row.path("fingerprint").asString()).isEqualTo(fingerprint);
          assertThat(row.path("bodyBytes").asInt()).isEqualTo("payments-0".length());
          long next = rows.path("next").asLong();
          assertThat(next).isEqualTo(row.path("id").asLong());
          JsonNode rest =
              json(
                  get(
                      context,
                      "/actuator/relayer/dead-rows?destination=payments&limit=1&after=" + next));
          assertThat(rest.path("rows")).hasSize(1);
          assertThat(rest.path("rows").get(0).path("id").asLong()).isGreaterThan(next);
          JsonNode none =
              json(
                  get(
                      context,
                      "/actuator/relayer/dead-rows?failedBefore=" + query("2020-01-01T00:00:00Z")));
          assertThat(none.path("rows")).isEmpty();
          assertThat(none.path("next").isNull() || none.path("next").isMissingNode())
              .as("no next page")
              .isTrue();

          assertThat(get(context, "/actuator/relayer/dead-things").statusCode()).isEqualTo(400);
          assertThat(get(context, "/actuator/relayer/dead-rows?failedFrom=yesterday").statusCode())
              .isEqualTo(400);
          assertThat(get(context, "/actuator/relayer/dead-rows?limit=0").statusCode())
              .isEqualTo(400);
          assertThat(get(context, "/actuator/relayer/dead-groups?transport=%20").statusCode())
              .isEqualTo(400);
          assertThat(post(context, "/actuator/relayer/purge-dead", "{\"all\":true}").statusCode())
              .isBetween(400, 499);
          assertThat(context.getBean(Relayer.class).operator().deadCount(DeadFilter.all()))
              .isEqualTo(3);
        },
        "relayer.dispatch.max-attempts=1");
  }

  @Test
  void replayDeadSendsTheFilteredRowsAgainAndPurgeDeadDeletesOnlyItsRows() {
    withApp(
        context -> {
          InMemoryTransport memory = context.getBean(InMemoryTransport.class);
          Relayer relayer = context.getBean(Relayer.class);
          List<String> payments = bury(context, "payments", "timeout after 30 ms", 3);
          bury(context, "refunds", "no route to exchange refunds", 2);
          bury(context, "invoices", "message too large", 1);

          HttpResponse<String> replayed =
              post(
                  context,
                  "/actuator/relayer/replay-dead",
                  "{\"fingerprint\":\""
                      + ErrorFingerprint.of("timeout after 30 ms")
                      + "\",\"batchSize\":2}");

          assertThat(replayed.statusCode()).isEqualTo(200);
          JsonNode result = json(replayed);
          assertThat(result.path("action").asString()).isEqualTo("replay-dead");
          assertThat(result.path("replayed").asLong()).isEqualTo(3);
          assertThat(result.path("ordered").asLong()).isZero();
          assertThat(result.path("batches").asInt()).isEqualTo(2);
          assertThat(result.path("parkedKeys")).isEmpty();
          await()
              .atMost(Duration.ofSeconds(10))
              .until(
                  () ->
                      memory.deliveries().stream()
                          .map(StarterFixture::body)
                          .toList()
                          .containsAll(payments));

          HttpResponse<String> purged =
              post(context, "/actuator/relayer/purge-dead", "{\"destination\":\"refunds\"}");

          assertThat(purged.statusCode()).isEqualTo(200);
          assertThat(json(purged).path("purged").asLong()).isEqualTo(2);
          assertThat(relayer.operator().deadRows(DeadPage.first(DeadFilter.all(), 10)))
              .singleElement()
              .satisfies(row -> assertThat(row.destination()).isEqualTo("invoices"));

          assertThat(post(context, "/actuator/relayer/purge-dead", "{}").statusCode())
              .isEqualTo(400);
          assertThat(
                  post(
                          context,
                          "/actuator/relayer/purge-dead",
                          "{\"all\":true,\"reason\":\"rejected\"}")
                      .statusCode())
              .isEqualTo(400);
          assertThat(
                  post(context, "/actuator/relayer/replay-dead", "{\"all\":true,\"batchSize\":0}")
                      .statusCode())
              .isEqualTo(400);
          assertThat(relayer.operator().deadCount(DeadFilter.all())).isEqualTo(1);

          HttpResponse<String> everything =
              post(context, "/actuator/relayer/purge-dead", "{\"all\":true}");

          assertThat(everything.statusCode()).isEqualTo(200);
          assertThat(json(everything).path("purged").asLong()).isEqualTo(1);
          assertThat(relayer.operator().deadCount(DeadFilter.all())).isZero();
        },
        "relayer.dispatch.max-attempts=1",
        "relayer.actuator.operations.enabled=true");
  }

  @Test
  void healthEndpointShowsRelayerComponentWithDetails() {
    withApp(
        context -> {
          HttpResponse<String> response = get(context, "/actuator/health");

          assertThat(response.statusCode()).isEqualTo(200);
          JsonNode relayer = json(response).path("components").path("relayer");
          assertThat(relayer.path("status").asString()).isEqualTo("UP");
          assertThat(relayer.path("details").path("eligible").asLong()).isZero();
          assertThat(relayer.path("details").path("deadRows").asLong()).isZero();
          assertThat(relayer.path("details").has("leases")).isTrue();
        });
  }

  @Test
  void relayerEndpointShowsStatusAndParkedKeysButNoActionsByDefault() {
    withApp(
        context -> {
          park(context, "customer-7");

          HttpResponse<String> response = get(context, "/actuator/relayer");

          assertThat(response.statusCode()).isEqualTo(200);
          JsonNode status = json(response);
          assertThat(status.path("status").asString()).isIn("HEALTHY", "DEGRADED", "UNHEALTHY");
          assertThat(status.path("parkedKeys").asLong()).isEqualTo(1);
          assertThat(status.path("parked")).hasSize(1);
          assertThat(status.path("parked").get(0).path("key").asString()).isEqualTo("customer-7");
          assertThat(status.path("parked").get(0).path("lastError").asString())
              .contains("broker says no");
          assertThat(status.path("operations").asBoolean()).isFalse();

          HttpResponse<String> refused =
              post(context, "/actuator/relayer/retry-head", "{\"key\":\"customer-7\"}");

          assertThat(refused.statusCode()).isBetween(400, 499);
          Relayer relayer = context.getBean(Relayer.class);
          assertThat(relayer.operator().parkedKey("customer-7")).isPresent();
        },
        "relayer.dispatch.max-attempts=1");
  }

  @Test
  void operationsRetryAParkedHeadAndMoveAnotherToDead() {
    withApp(
        context -> {
          InMemoryTransport memory = context.getBean(InMemoryTransport.class);
          Relayer relayer = context.getBean(Relayer.class);
          park(context, "customer-1");
          park(context, "customer-2");
          assertThat(json(get(context, "/actuator/relayer")).path("operations").asBoolean())
              .isTrue();

          HttpResponse<String> retried =
              post(context, "/actuator/relayer/retry-head", "{\"key\":\"customer-1\"}");

          assertThat(retried.statusCode()).isEqualTo(200);
          assertThat(json(retried).path("changed").asBoolean()).isTrue();
          await()
              .atMost(Duration.ofSeconds(5))
              .until(
                  () ->
                      memory.deliveries().stream()
                          .anyMatch(d -> StarterFixture.body(d).equals("order-of-customer-1")));

          HttpResponse<String> dead =
              post(context, "/actuator/relayer/move-head-to-dead", "{\"key\":\"customer-2\"}");

          assertThat(dead.statusCode()).isEqualTo(200);
          assertThat(json(dead).path("changed").asBoolean()).isTrue();
          assertThat(relayer.operator().parkedKeys()).isEmpty();
          JsonNode status = json(get(context, "/actuator/relayer"));
          assertThat(status.path("deadRows").asLong()).isEqualTo(1);
          assertThat(status.path("parked")).isEmpty();
          assertThat(memory.deliveries())
              .noneMatch(d -> StarterFixture.body(d).equals("order-of-customer-2"));

          HttpResponse<String> notParked =
              post(context, "/actuator/relayer/retry-head", "{\"key\":\"customer-2\"}");
          assertThat(json(notParked).path("changed").asBoolean()).isFalse();
        },
        "relayer.dispatch.max-attempts=1",
        "relayer.actuator.operations.enabled=true");
  }

  @Test
  void operationsReleaseALaneAndEverything() {
    withApp(
        context -> {
          park(context, "customer-3");
          int lane =
              context
                  .getBean(Relayer.class)
                  .operator()
                  .parkedKey("customer-3")
                  .orElseThrow()
                  .lane();

          HttpResponse<String> released =
              post(context, "/actuator/relayer/release-lane", "{\"lane\":" + lane + "}");

          assertThat(released.statusCode()).isEqualTo(200);
          assertThat(json(released).path("released").asInt()).isEqualTo(1);
          await()
              .atMost(Duration.ofSeconds(5))
              .until(
                  () ->
                      context.getBean(InMemoryTransport.class).deliveries().stream()
                          .anyMatch(d -> StarterFixture.body(d).equals("order-of-customer-3")));

          park(context, "customer-4");
          HttpResponse<String> all = post(context, "/actuator/relayer/release-all", "{}");

          assertThat(all.statusCode()).isEqualTo(200);
          assertThat(json(all).path("released").asInt()).isEqualTo(1);
          assertThat(context.getBean(Relayer.class).operator().parkedKeys()).isEmpty();
        },
        "relayer.dispatch.max-attempts=1",
        "relayer.actuator.operations.enabled=true");
  }

  @Test
  void badActionRequestsAreAnsweredWith400() {
    withApp(
        context -> {
          assertThat(post(context, "/actuator/relayer/reboot", "{}").statusCode()).isEqualTo(400);
          assertThat(post(context, "/actuator/relayer/retry-head", "{}").statusCode())
              .isEqualTo(400);
          assertThat(
                  post(context, "/actuator/relayer/release-lane", "{\"lane\":99999}").statusCode())
              .isEqualTo(400);
        },
        "relayer.actuator.operations.enabled=true");
  }
}
