package dev.relayer.jackson;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.jackson.Events.OrderPlaced;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class JacksonMessageSerializerTest {

  private final JacksonMessageSerializer serializer = JacksonMessageSerializer.create();

  @Test
  void aRecordIsWrittenAsJsonAndReadBackEqual() {
    OrderPlaced event = new OrderPlaced("o-1", "acme", new BigDecimal("12.50"));

    byte[] body = serializer.serialize(event);

    assertThat(new String(body, UTF_8))
        .isEqualTo("{\"orderId\":\"o-1\",\"tenant\":\"acme\",\"total\":12.50}");
    assertThat(serializer.deserialize(body, OrderPlaced.class)).isEqualTo(event);
    assertThat(serializer.contentType()).isEqualTo("application/json");
  }

  @Test
  void theApplicationsMapperIsUsedAsConfigured() {
    JacksonMessageSerializer custom =
        JacksonMessageSerializer.of(
            JsonMapper.builder()
                .propertyNamingStrategy(tools.jackson.databind.PropertyNamingStrategies.SNAKE_CASE)
                .build());

    assertThat(new String(custom.serialize(new Events.PaymentTaken("o-1", 250)), UTF_8))
        .isEqualTo("{\"order_id\":\"o-1\",\"cents\":250}");
  }

  @Test
  void aGetterThatThrowsFailsTheSerializationWithJacksonsError() {
    assertThatThrownBy(() -> serializer.serialize(new Events.InvoiceIssued()))
        .isInstanceOf(RuntimeException.class)
        .hasMessageContaining("invoice number not assigned yet");
  }

  @Test
  void aNullMapperIsRefused() {
    assertThatThrownBy(() -> JacksonMessageSerializer.of(null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("mapper must not be null");
  }
}
