package dev.relayer.transport.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.OutgoingMessage;
import io.nats.client.Options;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NatsTransportTest {

  @Test
  void buildsWithDefaultsFromAUrlWithoutConnecting() throws Exception {
    NatsTransport transport = NatsTransport.builder().url("nats://127.0.0.1:1").build();

    assertThat(transport.name()).isEqualTo("nats");
    assertThat(transport.maxBatchSize()).isEqualTo(500);
    assertThat(transport.preservesBatchOrder()).isFalse();
    transport.close();
    transport.close();
  }

  @Test
  void rejectsEveryBadSettingAtOnceNamingEach() {
    assertThatThrownBy(
            () ->
                NatsTransport.builder()
                    .name("")
                    .maxBatchSize(10_001)
                    .connectTimeout(Duration.ZERO)
                    .reconnectWait(null)
                    .build())
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e ->
                assertThat(e.problems())
                    .hasSize(5)
                    .anySatisfy(p -> assertThat(p).startsWith("name "))
                    .anySatisfy(p -> assertThat(p).startsWith("maxBatchSize "))
                    .anySatisfy(p -> assertThat(p).startsWith("connectTimeout "))
                    .anySatisfy(p -> assertThat(p).startsWith("reconnectWait "))
                    .anySatisfy(p -> assertThat(p).startsWith("url is required")));
  }

  @Test
  void urlAndOptionsAreExclusive() {
    assertThatThrownBy(
            () ->
                NatsTransport.builder()
                    .url("nats://127.0.0.1:4222")
                    .options(new Options.Builder().server("nats://127.0.0.1:4222").build())
                    .build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("url and options are exclusive");
  }

  @Test
  void rejectsAMalformedUrl() {
    assertThatThrownBy(() -> NatsTransport.builder().url("nats://host:notaport").build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("url is not a valid NATS URL");
  }

  @Test
  void aTenantNatsHeadersCannotCarryIsAProblemNamingTheTenant() throws Exception {
    NatsTransport transport = NatsTransport.builder().url("nats://127.0.0.1:1").build();
    OutgoingMessage message =
        new OutgoingMessage(UUID.randomUUID(), "t", Map.of(), new byte[0], null, "caf\u00e9");

    assertThat(transport.problems("orders.created", message))
        .singleElement()
        .satisfies(
            problem ->
                assertThat(problem)
                    .startsWith("tenantId cannot travel in the NATS header relayer-tenant-id")
                    .contains("index 3"));
    assertThat(
            transport.problems(
                "orders.created",
                new OutgoingMessage(UUID.randomUUID(), "t", Map.of(), new byte[0], null, "acme")))
        .isEmpty();
    transport.close();
  }

  @Test
  void acceptsLiteralSubjectsAndRejectsTheRest() {
    assertThat(NatsSubject.check("orders.created.v1", 4096)).isEqualTo("orders.created.v1");
    for (String bad :
        new String[] {"", " ", "orders created", "orders..created", ".orders", "orders.>"}) {
      assertThatThrownBy(() -> NatsSubject.check(bad, 4096))
          .as("subject '%s'", bad)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("destination '" + bad + "'");
    }
  }
}
