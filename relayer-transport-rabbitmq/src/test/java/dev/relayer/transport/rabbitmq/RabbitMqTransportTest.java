package dev.relayer.transport.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import java.time.Duration;
import java.util.List;
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

  @Test
  void rejectsEveryBadAddressNamingIt() {
    assertThatThrownBy(
            () ->
                RabbitMqTransport.builder()
                    .uri("amqp://guest:guest@127.0.0.1/")
                    .addresses(
                        List.of(
                            "node-1:5672",
                            "node-2:0",
                            " ",
                            "amqp://node-3",
                            "node-4:http",
                            "::1",
                            "[::1]:5672",
                            "[::1",
                            ":5672"))
                    .build())
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "addresses: 'node-2:0' has port '0'; a port is 1 to 65535",
                        "addresses: an entry is blank; each is host[:port]",
                        "addresses: 'amqp://node-3' is not host[:port]; the scheme, user and"
                            + " virtual host belong in the uri",
                        "addresses: 'node-4:http' has port 'http'; a port is 1 to 65535",
                        "addresses: '::1' has several colons; write an IPv6 host as [host]:port",
                        "addresses: '[::1' opens an IPv6 literal with [ but never closes it",
                        "addresses: ':5672' has no valid host; each entry is host[:port]"));
  }

  @Test
  void rejectsAnEmptyAddressList() {
    assertThatThrownBy(
            () ->
                RabbitMqTransport.builder()
                    .uri("amqp://guest:guest@127.0.0.1/")
                    .addresses(List.of())
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("addresses must not be empty when given");
  }

  @Test
  void addressesStillNeedAUriOrAConnectionFactory() {
    assertThatThrownBy(() -> RabbitMqTransport.builder().addresses(List.of("node-1")).build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("uri is required");
  }
}
