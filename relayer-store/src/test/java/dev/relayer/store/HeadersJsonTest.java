package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relayer.store.internal.HeadersJson;
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
  void writesPlainValuesAsIsAndEscapesTheRest() {
    assertThat(HeadersJson.write(Map.of("k", "plain")).data()).isEqualTo("{\"k\":\"plain\"}");
    assertThat(HeadersJson.write(Map.of("k", "ab\"c\u0001")).data())
        .isEqualTo("{\"k\":\"ab\\\"c\\u0001\"}");
  }
}
