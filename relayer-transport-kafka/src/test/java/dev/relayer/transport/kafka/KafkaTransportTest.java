package dev.relayer.transport.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class KafkaTransportTest {

  private static Properties bootstrap() {
    Properties properties = new Properties();
    properties.put("bootstrap.servers", "127.0.0.1:1");
    return properties;
  }

  @Test
  void buildsWithDefaultsWithoutConnecting() {
    KafkaTransport transport = KafkaTransport.builder().properties(bootstrap()).build();

    assertThat(transport.name()).isEqualTo("kafka");
    assertThat(transport.maxBatchSize()).isEqualTo(500);
    assertThat(transport.preservesBatchOrder()).isFalse();
    transport.close();
    transport.close();
  }

  @Test
  void rejectsEveryBadSettingAtOnceNamingEach() {
    assertThatThrownBy(
            () ->
                KafkaTransport.builder()
                    .name(" ")
                    .maxBatchSize(0)
                    .closeTimeout(Duration.ofSeconds(-1))
                    .build())
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.problems())
                    .hasSize(4)
                    .anySatisfy(p -> assertThat(p).startsWith("name "))
                    .anySatisfy(p -> assertThat(p).startsWith("maxBatchSize "))
                    .anySatisfy(p -> assertThat(p).startsWith("closeTimeout "))
                    .anySatisfy(p -> assertThat(p).startsWith("properties are required")));
  }

  @Test
  void rejectsPropertiesThatWouldBreakItsGuarantees() {
    Properties properties = new Properties();
    properties.put("enable.idempotence", "false");
    properties.put("acks", "1");
    properties.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");

    assertThatThrownBy(() -> KafkaTransport.builder().properties(properties).build())
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.problems())
                    .containsExactlyInAnyOrder(
                        "properties: bootstrap.servers is required",
                        "properties: enable.idempotence must be true, was false",
                        "properties: acks must be all or -1, was 1",
                        "properties: value.serializer must be"
                            + " org.apache.kafka.common.serialization.ByteArraySerializer, was"
                            + " org.apache.kafka.common.serialization.StringSerializer"));
  }

  @Test
  void reportsTheProducersOwnConfigurationErrors() {
    Properties properties = bootstrap();
    properties.put("linger.ms", "soon");

    assertThatThrownBy(() -> KafkaTransport.builder().properties(properties).build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("properties: the Kafka producer rejects them")
        .hasMessageContaining("linger.ms");
  }

  @Test
  void acceptsLegalTopicNamesAndRejectsTheRest() {
    assertThat(KafkaTopic.check("orders.created_v1-eu")).isEqualTo("orders.created_v1-eu");
    for (String bad : new String[] {"", ".", "..", "orders/created", "a b", "x".repeat(250)}) {
      assertThatThrownBy(() -> KafkaTopic.check(bad))
          .as("topic '%s'", bad)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("is not a Kafka topic");
    }
  }
}
