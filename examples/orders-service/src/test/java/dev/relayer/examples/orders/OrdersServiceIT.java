package dev.relayer.examples.orders;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.relayer.testkit.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example service end to end: the real application (web server on a free port) over a fresh
 * PostgreSQL database from the testkit and the RabbitMQ at {@code RELAYER_RABBITMQ_URI}, driven
 * over HTTP only.
 */
class OrdersServiceIT {

  static final String RABBIT_URI =
      System.getenv().getOrDefault("RELAYER_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672/");
  static final Pattern ORDER_ID = Pattern.compile("\"orderId\":(\\d+)");
  static final Pattern MESSAGE_ID = Pattern.compile("\"messageId\":\"([0-9a-f-]{36})\"");

  static TestDatabase database;
  static ConfigurableApplicationContext app;
  static String queue;
  static URI base;
  static HttpClient http;

  @BeforeAll
  static void startTheService() {
    database = TestDatabase.create();
    queue = "orders-it-" + UUID.randomUUID();
    // Command-line arguments: they win over application.properties.
    java.util.List<String> args = new java.util.ArrayList<>();
    args.add("--server.port=0");
    args.add("--spring.datasource.url=" + database.jdbcUrl());
    args.add("--spring.datasource.username=" + database.user());
    if (database.password() != null) {
      args.add("--spring.datasource.password=" + database.password());
    }
    args.add("--orders.rabbitmq.uri=" + RABBIT_URI);
    args.add("--orders.queue=" + queue);
    app = new SpringApplicationBuilder(OrdersApplication.class).run(args.toArray(String[]::new));
    base = URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"));
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  }

  @AfterAll
  static void stopTheService() throws Exception {
    if (app != null) {
      app.close();
    }
    try (Connection connection = rabbit();
        Channel channel = connection.createChannel()) {
      channel.queueDelete(queue);
    }
    if (database != null) {
      database.close();
    }
  }

  @Test
  void anOrderPostedOverHttpIsCommittedSentToRabbitMqAndShippedOnce() throws Exception {
    long shippedBefore = shipping("shipped");

    HttpResponse<String> response = post("{\"item\":\"book\",\"quantity\":2}");

    assertThat(response.statusCode()).isEqualTo(201);
    long orderId = Long.parseLong(match(ORDER_ID, response.body()));
    UUID messageId = UUID.fromString(match(MESSAGE_ID, response.body()));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(shipping("shipped")).isEqualTo(shippedBefore + 1));
    assertThat(shipments(orderId)).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM shipments WHERE message_id = ?", messageId))
        .isEqualTo(1);
    assertThat(count("SELECT count(*) FROM relayer_inbox WHERE message_id = ?", messageId))
        .isEqualTo(1);
    assertThat(count("SELECT count(*) FROM relayer_outbox WHERE message_id = ?", messageId))
        .as("the sent row is deleted from the outbox")
        .isZero();
    assertThat(get("/orders/" + orderId).body()).contains("\"item\":\"book\"");
  }

  @Test
  void aSecondDeliveryOfTheSameMessageIsDroppedByTheInbox() throws Exception {
    HttpResponse<String> response = post("{\"item\":\"lamp\",\"quantity\":1}");
    assertThat(response.statusCode()).isEqualTo(201);
    long orderId = Long.parseLong(match(ORDER_ID, response.body()));
    UUID messageId = UUID.fromString(match(MESSAGE_ID, response.body()));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(shipments(orderId)).isEqualTo(1));
    long duplicatesBefore = shipping("duplicatesDropped");

    // What a crash after the broker's confirm and before Relayer's delete leads to: the same
    // message id on the queue again.
    try (Connection connection = rabbit();
        Channel channel = connection.createChannel()) {
      channel.confirmSelect();
      channel.basicPublish(
          "",
          queue,
          true,
          new AMQP.BasicProperties.Builder()
              .messageId(messageId.toString())
              .type("OrderPlaced")
              .headers(Map.of(Orders.ORDER_ID_HEADER, Long.toString(orderId)))
              .deliveryMode(2)
              .build(),
          ("{\"orderId\":" + orderId + ",\"quantity\":1}").getBytes(UTF_8));
      channel.waitForConfirmsOrDie(5_000);
    }

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(shipping("duplicatesDropped")).isEqualTo(duplicatesBefore + 1));
    assertThat(shipments(orderId)).as("shipped once, not twice").isEqualTo(1);
  }

  @Test
  void anInvalidOrderIsRefusedAndNothingIsSent() throws Exception {
    long outboxBefore = count("SELECT count(*) FROM orders");

    HttpResponse<String> response = post("{\"item\":\"\",\"quantity\":0}");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(count("SELECT count(*) FROM orders")).isEqualTo(outboxBefore);
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

  /** A counter from {@code GET /shipping}. */
  static long shipping(String counter) throws Exception {
    String body = get("/shipping").body();
    return Long.parseLong(match(Pattern.compile("\"" + counter + "\":(\\d+)"), body));
  }

  static long shipments(long orderId) throws Exception {
    return count("SELECT count(*) FROM shipments WHERE order_id = ?", orderId);
  }

  static long count(String sql, Object... parameters) throws Exception {
    try (java.sql.Connection connection = database.connect();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  static String match(Pattern pattern, String text) {
    Matcher matcher = pattern.matcher(text);
    assertThat(matcher.find()).as("%s in %s", pattern, text).isTrue();
    return matcher.group(1);
  }

  static Connection rabbit() throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(RABBIT_URI);
    if (factory.getVirtualHost().isEmpty()) {
      factory.setVirtualHost("/");
    }
    return factory.newConnection("orders-service-it");
  }
}
