package dev.relayer.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The service with no {@code spring.datasource.url}, as on a machine with only Java and Maven. */
class EmbeddedPostgresIT {

  @Test
  void withoutADataSourceUrlTheServiceStartsOnAnEmbeddedPostgresAndShipsOrders() throws Exception {
    String queue = "orders-embedded-it-" + UUID.randomUUID();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(OrdersApplication.class)
            .run(
                "--server.port=0",
                "--orders.rabbitmq.uri=" + OrdersServiceIT.RABBIT_URI,
                "--orders.queue=" + queue)) {
      assertThat(app.getBeansOfType(EmbeddedPostgres.class)).hasSize(1);
      URI base =
          URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"));

      HttpResponse<String> placed =
          http.send(
              HttpRequest.newBuilder(base.resolve("/orders"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"mug\",\"quantity\":1}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(placed.statusCode()).isEqualTo(201);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(
                          http.send(
                                  HttpRequest.newBuilder(base.resolve("/shipping")).build(),
                                  HttpResponse.BodyHandlers.ofString())
                              .body())
                      .contains("\"shipped\":1"));
    } finally {
      try (Connection connection = OrdersServiceIT.rabbit();
          Channel channel = connection.createChannel()) {
        channel.queueDelete(queue);
      }
    }
  }
}
