package dev.relayer.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.relayer.api.spi.MessageSerializer;
import io.micrometer.core.instrument.MeterRegistry;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The service as {@code spring-boot:run} starts it on a machine with only Java: no data source
 * configured and no RabbitMQ reachable where one is configured, so it runs on an embedded
 * PostgreSQL and an embedded AMQP broker, places its demo orders and serves HTTP on a free port.
 * Whatever PostgreSQL or RabbitMQ this machine runs is not used.
 */
class OrdersServiceIT {

  /** Relayer's tables, as application.properties names them. */
  static final Table<?> OUTBOX = table(name("messaging", "orders_outbox"));

  static final Table<?> INBOX = table(name("messaging", "orders_inbox"));

  static final Pattern ORDER_ID = Pattern.compile("\"orderId\":(\\d+)");

  static ConfigurableApplicationContext app;
  static DSLContext dsl;
  static URI base;
  static final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void startTheServiceOnEmbeddedDefaults() throws IOException {
    app =
        new SpringApplicationBuilder(OrdersApplication.class)
            .run(
                "--server.port=0",
                "--spring.datasource.url=", // none, whatever the environment says
                "--spring.rabbitmq.addresses=",
                "--spring.rabbitmq.host=127.0.0.1",
                "--spring.rabbitmq.port=" + unusedPort(),
                "--orders.demo.count=3");
    dsl = app.getBean(DSLContext.class);
    base = URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"));
  }

  @AfterAll
  static void stopTheService() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void withNothingReachableTheDemoOrdersGoThroughTheEmbeddedBrokerToTheRabbitListener()
      throws Exception {
    assertThat(app.getBeansOfType(EmbeddedPostgres.class)).hasSize(1);
    assertThat(app.getBeansOfType(EmbeddedBroker.QpidBroker.class)).hasSize(1);

    // The demo's orders are 1 to 3, placed before the application context was returned.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(shipmentsOf(1L, 2L, 3L)).isEqualTo(3);
              assertThat(inboxRecordsOf(messagesShippedFor(1L, 2L, 3L))).isEqualTo(3);
              assertThat(dsl.fetchCount(OUTBOX)).isZero();
            });
    assertThat(get("/actuator/health/relayer").body()).contains("\"status\":\"UP\"");
    assertThat(get("/actuator/metrics/relayer.outbox.sent").body()).contains("\"rabbitmq\"");
  }

  @Test
  void anOrderPostedOverHttpIsShippedOnceAndLeavesNothingInTheOutbox() throws Exception {
    HttpResponse<String> response = post("{\"item\":\"book\",\"quantity\":2}");

    assertThat(response.statusCode()).isEqualTo(201);
    long orderId = Long.parseLong(match(ORDER_ID, response.body()));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(shipmentsOf(orderId)).isEqualTo(1));
    UUID messageId = messagesShippedFor(orderId)[0];
    assertThat(inboxRecordsOf(messageId)).isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(dsl.fetchCount(OUTBOX, field(name("message_id")).eq(messageId)))
                    .isZero());
    assertThat(get("/orders/" + orderId).body()).contains("\"item\":\"book\"");
  }

  @Test
  void aSecondDeliveryOfTheSameMessageIsDroppedByTheInbox() throws Exception {
    HttpResponse<String> placed = post("{\"item\":\"lamp\",\"quantity\":1}");
    long orderId = Long.parseLong(match(ORDER_ID, placed.body()));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(shipmentsOf(orderId)).isEqualTo(1));
    UUID messageId = messagesShippedFor(orderId)[0];
    MeterRegistry meters = app.getBean(MeterRegistry.class);
    double duplicatesBefore = duplicates(meters);

    // What a crash after the broker's confirm and before Relayer's delete leads to: the same
    // message on the queue again.
    byte[] body =
        app.getBean(MessageSerializer.class).serialize(new OrderPlaced(orderId, "lamp", 1));
    app.getBean(RabbitTemplate.class)
        .send(
            "",
            "orders",
            MessageBuilder.withBody(body)
                .setMessageId(messageId.toString())
                .setType("order.placed")
                .build());

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(duplicates(meters)).isEqualTo(duplicatesBefore + 1));
    assertThat(shipmentsOf(orderId)).as("shipped once, not twice").isEqualTo(1);
  }

  @Test
  void anInvalidOrderIsRefusedAndNothingIsWritten() throws Exception {
    int ordersBefore = dsl.fetchCount(table(name("orders")));

    HttpResponse<String> response = post("{\"item\":\"\",\"quantity\":0}");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(dsl.fetchCount(table(name("orders")))).isEqualTo(ordersBefore);
  }

  static int shipmentsOf(Long... orderIds) {
    return dsl.fetchCount(Shipping.SHIPMENTS, Shipping.ORDER_ID.in(orderIds));
  }

  static UUID[] messagesShippedFor(Long... orderIds) {
    return dsl.select(Shipping.MESSAGE_ID)
        .from(Shipping.SHIPMENTS)
        .where(Shipping.ORDER_ID.in(orderIds))
        .fetchArray(Shipping.MESSAGE_ID);
  }

  static int inboxRecordsOf(UUID... messageIds) {
    return dsl.fetchCount(
        INBOX,
        field(name("consumer")).eq("shipping"),
        field(name("message_id"), UUID.class).in(messageIds));
  }

  static double duplicates(MeterRegistry meters) {
    return meters.find("relayer.inbox.duplicates").counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  static HttpResponse<String> post(String json) throws Exception {
    return http.send(
        HttpRequest.newBuilder(base.resolve("/orders"))
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static String match(Pattern pattern, String text) {
    Matcher matcher = pattern.matcher(text);
    assertThat(matcher.find()).as("%s in %s", pattern, text).isTrue();
    return matcher.group(1);
  }

  /** A port nothing listens on: one the system just handed out and took back. */
  static int unusedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
