package dev.relayer.transport.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import org.junit.jupiter.api.Test;

class RabbitMqDestinationTest {

  @Test
  void splitsExchangeAndRoutingKeyAtTheFirstSlash() {
    assertThat(RabbitMqDestination.parse("orders/eu/order.created"))
        .isEqualTo(new RabbitMqDestination("orders", "eu/order.created"));
  }

  @Test
  void aLeadingSlashMeansTheDefaultExchange() {
    assertThat(RabbitMqDestination.parse("/billing"))
        .isEqualTo(new RabbitMqDestination("", "billing"));
  }

  @Test
  void noSlashMeansAnEmptyRoutingKey() {
    assertThat(RabbitMqDestination.parse("audit")).isEqualTo(new RabbitMqDestination("audit", ""));
  }

  @Test
  void rejectsBlankBareSlashAndOverlongNames() {
    assertThatThrownBy(() -> RabbitMqDestination.parse(" "))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("blank");
    assertThatThrownBy(() -> RabbitMqDestination.parse("/"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("default exchange without a routing key");
    assertThatThrownBy(() -> RabbitMqDestination.parse("x".repeat(256) + "/key"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("exchange name is longer than 255 bytes");
    assertThatThrownBy(() -> RabbitMqDestination.parse("ex/" + "é".repeat(128)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("routing key is longer than 255 bytes");
  }

  @Test
  void countsUtf8BytesAsTheEncoderDoes() {
    for (String text : new String[] {"", "orders", "é", "日本", "😀x", "a".repeat(300)}) {
      assertThat(AmqpFields.utf8Length(text))
          .as("'%s'", text)
          .isEqualTo(text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    }
  }
}
