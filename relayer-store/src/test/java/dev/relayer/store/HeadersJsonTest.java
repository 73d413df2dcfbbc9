package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class HeadersJsonTest {

  @Test
  void readsPostgresJsonbTextWithSpacesAndEscapes() {
    Map<String, String> headers =
        HeadersJson.read(
            "{\"a\": \"plain\", \"q\\\"uote\": \"x\\\\y\", \"u\": \"\\u00dc\\n\", \"e\": \"\"}");
    assertThat(headers)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("a", "plain", "q\"uote", "x\\y", "u", "Ü\n", "e", ""));
  }

  @Test
  void aValueWithAnEscapeAfterPlainTextKeepsTheTextBeforeIt() {
    assertThat(HeadersJson.read("{\"k\":\"abc\\tdef\"}")).containsEntry("k", "abc\tdef");
  }

  @Test
  void readsMoreHeadersThanItsFirstGuess() {
    StringBuilder json = new StringBuilder("{");
    for (int i = 0; i < 40; i++) {
      json.append(i == 0 ? "" : ",").append("\"h").append(i).append("\":\"v").append(i).append('"');
    }
    Map<String, String> headers = HeadersJson.read(json.append('}').toString());
    assertThat(headers).hasSize(40).containsEntry("h0", "v0").containsEntry("h39", "v39");
  }

  @Test
  void aNameGivenTwiceKeepsItsLastValue() {
    assertThat(HeadersJson.read("{\"k\":\"first\",\"other\":\"o\",\"k\":\"last\"}"))
        .isEqualTo(Map.of("k", "last", "other", "o"));
  }

  @Test
  void whatItReadsIsImmutableAndEmptyForNothing() {
    assertThatThrownBy(() -> HeadersJson.read("{\"k\":\"v\"}").put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(HeadersJson.read((String) null)).isEmpty();
    assertThat(HeadersJson.read(" { } ")).isEmpty();
  }

  @Test
  void malformedTextNamesWhatIsWrong() {
    assertThatThrownBy(() -> HeadersJson.read("{\"k\":\"unterminated"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("unexpected end");
    assertThatThrownBy(() -> HeadersJson.read("{\"k\":\"v\";}"))
        .hasMessageContaining("expected ',' or '}'");
    assertThatThrownBy(() -> HeadersJson.read("{\"k\":\"\\x\"}"))
        .hasMessageContaining("bad escape");
    assertThatThrownBy(() -> HeadersJson.read("{\"k\":1}")).hasMessageContaining("expected '\"'");
  }

  @Test
  void aNameReadBeforeIsOneStringForEveryRowAndValuesAreEachRowsOwn() {
    Map<String, String> first = HeadersJson.read("{\"traceparent\":\"v\",\"seq\":\"1\"}");
    Map<String, String> second = HeadersJson.read("{ \"seq\": \"2\", \"traceparent\": \"v\" }");
    assertThat(second).isEqualTo(Map.of("traceparent", "v", "seq", "2"));
    assertThat(name(second, "traceparent")).isSameAs(name(first, "traceparent"));
    assertThat(name(second, "seq")).isSameAs(name(first, "seq"));
    assertThat(second.get("traceparent")).isEqualTo("v").isNotSameAs(first.get("traceparent"));
  }

  @Test
  void longAndEscapedNamesAreReadAsWrittenAndNotKept() {
    String longName = "n".repeat(HeadersJson.Names.LONGEST + 1);
    String json = "{\"" + longName + "\":\"v\",\"q\\\"n\":\"w\"}";
    Map<String, String> first = HeadersJson.read(json);
    Map<String, String> second = HeadersJson.read(json);
    assertThat(second).isEqualTo(Map.of(longName, "v", "q\"n", "w"));
    assertThat(name(second, longName)).isNotSameAs(name(first, longName));
    assertThat(name(second, "q\"n")).isNotSameAs(name(first, "q\"n"));
  }

  @Test
  void namesBeyondItsSlotsAreReadAsWrittenAndItKeepsNoMoreThanItsSlots() {
    HeadersJson.Names names = new HeadersJson.Names();
    int distinct = HeadersJson.Names.SLOTS * 8;
    String[] first = new String[distinct];
    for (int i = 0; i < distinct; i++) {
      String text = "[\"header-" + i + "\"]";
      first[i] = names.of(text, 2, text.length() - 2);
      assertThat(first[i]).isEqualTo("header-" + i);
    }
    int kept = 0;
    for (int i = 0; i < distinct; i++) {
      String again = names.of("header-" + i, 0, ("header-" + i).length());
      assertThat(again).isEqualTo("header-" + i);
      kept += again == first[i] ? 1 : 0;
    }
    assertThat(kept).isPositive().isLessThanOrEqualTo(HeadersJson.Names.SLOTS);
  }

  /** The key of {@code headers} equal to {@code name}: the very string the map holds. */
  private static String name(Map<String, String> headers, String name) {
    return headers.keySet().stream().filter(name::equals).findFirst().orElseThrow();
  }

  @Test
  void writesPlainValuesAsIsAndEscapesTheRest() {
    assertThat(HeadersJson.write(Map.of("k", "plain")).data()).isEqualTo("{\"k\":\"plain\"}");
    assertThat(HeadersJson.write(Map.of("k", "ab\"c\u0001")).data())
        .isEqualTo("{\"k\":\"ab\\\"c\\u0001\"}");
  }
}
