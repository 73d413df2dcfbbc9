package dev.relayer.schema;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IdentifiersTest {

  @Test
  void quoteDoublesEmbeddedQuotes() {
    assertThat(Identifiers.quote("my\"Schema")).isEqualTo("\"my\"\"Schema\"");
    assertThat(Identifiers.quote("\"")).isEqualTo("\"\"\"\"");
    assertThat(Identifiers.quote("a\"\"b")).isEqualTo("\"a\"\"\"\"b\"");
  }

  @Test
  void quoteKeepsSpacesUpperCasePunctuationAndUnicodeAsGiven() {
    assertThat(Identifiers.quote("my Schema X")).isEqualTo("\"my Schema X\"");
    assertThat(Identifiers.quote("Orders")).isEqualTo("\"Orders\"");
    assertThat(Identifiers.quote("Ü-x_")).isEqualTo("\"Ü-x_\"");
    assertThat(Identifiers.quote("日本;--")).isEqualTo("\"日本;--\"");
  }

  @Test
  void qualifyQuotesSchemaAndNameSeparately() {
    assertThat(Identifiers.qualify("my\"Schema X", "Ü-x_outbox"))
        .isEqualTo("\"my\"\"Schema X\".\"Ü-x_outbox\"");
  }

  @Test
  void byteLengthCountsUtf8Bytes() {
    assertThat(Identifiers.byteLength("abc")).isEqualTo(3);
    assertThat(Identifiers.byteLength("é")).isEqualTo(2);
    assertThat(Identifiers.byteLength("€")).isEqualTo(3);
    assertThat(Identifiers.byteLength("😀")).isEqualTo(4);
  }

  @Test
  void acceptsAnIdentifierOfExactly63BytesOfTwoByteCharacters() {
    String identifier = "é".repeat(31) + "a";
    assertThat(Identifiers.byteLength(identifier)).isEqualTo(63);
    assertThat(Identifiers.problem("schema", identifier)).isEmpty();
  }

  @Test
  void rejectsAnIdentifierOf64BytesOfTwoByteCharactersNamingItAndItsByteCount() {
    String identifier = "é".repeat(32);
    assertThat(identifier).hasSize(32);
    assertThat(Identifiers.problem("schema", identifier))
        .hasValueSatisfying(
            problem ->
                assertThat(problem)
                    .startsWith("schema")
                    .contains("\"" + identifier + "\"")
                    .contains("64 bytes")
                    .contains("63"));
  }

  @Test
  void appliesTheByteLimitToThreeAndFourByteCharacters() {
    assertThat(Identifiers.problem("schema", "€".repeat(21))).isEmpty();
    assertThat(Identifiers.problem("schema", "€".repeat(21) + "a"))
        .hasValueSatisfying(problem -> assertThat(problem).contains("64 bytes"));
    assertThat(Identifiers.problem("schema", "😀".repeat(15) + "abc")).isEmpty();
    assertThat(Identifiers.problem("schema", "😀".repeat(16)))
        .hasValueSatisfying(problem -> assertThat(problem).contains("64 bytes"));
  }

  @Test
  void acceptsAnAsciiIdentifierOf63CharactersAndRejects64() {
    assertThat(Identifiers.problem("schema", "a".repeat(63))).isEmpty();
    assertThat(Identifiers.problem("schema", "a".repeat(64))).isPresent();
  }

  @Test
  void rejectsNullEmptyAndNulIdentifiers() {
    assertThat(Identifiers.problem("schema", null)).hasValue("schema must not be null");
    assertThat(Identifiers.problem("schema", "")).hasValue("schema must not be empty");
    assertThat(Identifiers.problem("schema", "a\0b"))
        .hasValueSatisfying(problem -> assertThat(problem).contains("NUL"));
  }

  @Test
  void acceptsSpacesQuotesAndPunctuation() {
    assertThat(Identifiers.problem("schema", "my\"Schema X")).isEmpty();
    assertThat(Identifiers.problem("schema", " ")).isEmpty();
    assertThat(Identifiers.problem("schema", "a;DROP TABLE x;--")).isEmpty();
  }
}
