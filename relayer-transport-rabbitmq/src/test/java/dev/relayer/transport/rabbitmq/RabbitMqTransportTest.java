package dev.relayer.transport.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RabbitMqTransportTest {

  @Test
  void buildsWithDefaultsFromAUriWithoutConnecting() {
    RabbitMqTransport transport =
        RabbitMqTransport.builder().uri("amqp://guest:guest@127.0.0.1:1/").build();

    assertThat(transport.name()).isEqualTo("rabbitmq");
    assertThat(transport.maxBatchSize()).isEqualTo(500);
    assertThat(transport.preservesBatchOrder()).isFalse();
    transport.close();
    transport.close();
  }

  @Test
  void rejectsEveryBadSettingAtOnceNamingEach() {
    assertThatThrownBy(
            () ->
                RabbitMqTransport.builder()
                    .name(" ")
                    .maxBatchSize(0)
                    .connectTimeout(Duration.ZERO)
                    .recoveryInterval(Duration.ofSeconds(-1))
                    .build())
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.problems())
                    .hasSize(5)
                    .anySatisfy(p -> assertThat(p).startsWith("name "))
                    .anySatisfy(p -> assertThat(p).startsWith("maxBatchSize "))
                    .anySatisfy(p -> assertThat(p).startsWith("connectTimeout "))
                    .anySatisfy(p -> assertThat(p).startsWith("recoveryInterval "))
                    .anySatisfy(p -> assertThat(p).startsWith("uri is required")));
  }

  @Test
  void rejectsAMalformedUri() {
    assertThatThrownBy(() -> RabbitMqTransport.builder().uri("http://example/").build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("uri is not a valid AMQP URI");
  }

  @Test
  void rejectsABatchSizeAboveTheLimit() {
    assertThatThrownBy(
            () -> RabbitMqTransport.builder().uri("amqp://localhost").maxBatchSize(10_001).build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("maxBatchSize must be between 1 and 10000, was 10001");
  }
}
