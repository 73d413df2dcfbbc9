package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.api.InvalidInputException;
import dev.relayer.store.internal.ErrorFingerprint;
import dev.relayer.store.internal.HeadersJson;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NewMessageTest {

  @Test
  void buildListsEveryProblemAtOnce() {
    assertThatThrownBy(() -> NewMessage.builder().orderingKey("").build())
        .isInstanceOf(InvalidInputException.class)
        .satisfies(
            e ->
                assertThat(((InvalidInputException) e).problems())
                    .containsExactly(
                        "transport must not be blank",
                        "destination must not be blank",
                        "messageType must not be blank",
                        "body must not be null",
                        "orderingKey must be null (unordered) or non-empty"));
  }

  @Test
  void withHeadersAddedKeepsExistingValuesAndReturnsItselfWhenNothingIsAdded() {
    NewMessage message = StoreFixture.message().header("traceparent", "own").build();
    assertThat(message.withHeadersAdded(Map.of())).isSameAs(message);
    assertThat(message.withHeadersAdded(Map.of("traceparent", "other"))).isSameAs(message);
    NewMessage added =
        message.withHeadersAdded(Map.of("traceparent", "other", "tracestate", "a=1"));
    assertThat(added.headers())
        .containsEntry("traceparent", "own")
        .containsEntry("tracestate", "a=1");
    assertThat(added.messageId()).isEqualTo(message.messageId());
    assertThat(added.body()).isEqualTo(message.body());
  }

  @Test
  void withHeadersAddedRefusesNullValuesNamingTheHeader() {
    NewMessage message = StoreFixture.message().build();
    Map<String, String> added = new java.util.HashMap<>();
    added.put("x-null", null);
    assertThatThrownBy(() -> message.withHeadersAdded(added))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("header 'x-null' must not have a null value");
    assertThatThrownBy(() -> message.withHeadersAdded(null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("added headers must not be null");
  }

  @Test
  void buildGeneratesAMessageIdWhenAbsent() {
    NewMessage a = StoreFixture.message().build();
    NewMessage b = StoreFixture.message().build();
    assertThat(a.messageId()).isNotNull().isNotEqualTo(b.messageId());
  }

  @Test
  void headersRoundTripThroughJsonWithEscapes() {
    Map<String, String> headers =
        Map.of("a\"b", "c\\d", "ctl", "\u0001\t\n", "unicode", "Ü €", "empty", "");
    assertThat(HeadersJson.read(HeadersJson.write(headers))).isEqualTo(headers);
    assertThat(HeadersJson.read(HeadersJson.write(Map.of()))).isEmpty();
  }

  @Test
  void lanesAreStableAndWithinRange() {
    assertThat(Lanes.laneOf("customer-42", 16)).isEqualTo(Lanes.laneOf("customer-42", 16));
    for (int i = 0; i < 1000; i++) {
      assertThat(Lanes.laneOf("key-" + i, 7)).isBetween(0, 6);
    }
    // CRC-32("customer-42") is fixed by the algorithm, not by this JVM.
    assertThat(Lanes.stableHash("123456789")).isEqualTo((int) 0xCBF43926L);
  }

  @Test
  void fingerprintIgnoresNumbersAndIdsButNotTheErrorClass() {
    assertThat(ErrorFingerprint.of("java.io.IOException: timeout after 30 ms"))
        .isEqualTo(ErrorFingerprint.of("java.io.IOException: timeout after 4500 ms"))
        .isNotEqualTo(ErrorFingerprint.of("java.net.ConnectException: timeout after 30 ms"));
    assertThat(ErrorFingerprint.of("x 3f2504e0-4f89-11d3-9a0c-0305e82c3301"))
        .isEqualTo(ErrorFingerprint.of("x 00000000-0000-0000-0000-000000000001"));
    assertThat(ErrorFingerprint.of("e")).hasSize(16);
  }
}
