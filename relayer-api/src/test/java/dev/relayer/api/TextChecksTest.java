package dev.relayer.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TextChecksTest {

  @Test
  void acceptsPairedSurrogatesControlCharactersAndNull() {
    assertThat(TextChecks.problem("f", "a😀b\t\n\u0001'\"\\$$")).isEmpty();
    assertThat(TextChecks.problem("f", null)).isEmpty();
    assertThat(TextChecks.problem("f", "")).isEmpty();
  }

  @Test
  void namesTheFieldAndTheIndexOfTheFirstBadCharacter() {
    assertThat(TextChecks.problem("destination", "ab\0c"))
        .contains("destination must not contain a NUL character (at index 2)");
    assertThat(TextChecks.problem("consumer", "billing\uD800"))
        .contains("consumer must not contain an unpaired UTF-16 surrogate (U+D800 at index 7)");
    assertThat(TextChecks.problem("k", "\uDC00😀")).get().asString().contains("U+DC00 at index 0");
    assertThat(TextChecks.problem("k", "😀\uD83D")).get().asString().contains("at index 2");
    assertThatThrownBy(() -> TextChecks.require("tenantId", "\uD800\uD800"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("tenantId")
        .hasMessageContaining("at index 0");
  }
}
