package dev.relayer.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relayer.store.internal.ErrorText;
import org.junit.jupiter.api.Test;

class ErrorTextTest {

  @Test
  void quotesBackslashesAndLineBreaksAreKept() {
    String error = "it's \"x\" \\ $$ \n\t\r 😀";
    assertThat(ErrorText.stored(error)).isSameAs(error);
  }

  @Test
  void nulAndUnpairedSurrogatesBecomeReplacementCharacters() {
    assertThat(ErrorText.stored("a\0b\uD800c\uDC00d\uD83D\uDE00\uDBFF"))
        .isEqualTo("a\uFFFDb\uFFFDc\uFFFDd\uD83D\uDE00\uFFFD");
  }

  @Test
  void aLongTextIsCutWithoutSplittingASurrogatePair() {
    String error = "x".repeat(RelayerStore.MAX_ERROR_LENGTH - 2) + "😀" + "y".repeat(10);

    String stored = ErrorText.stored(error);

    assertThat(stored).hasSizeLessThanOrEqualTo(RelayerStore.MAX_ERROR_LENGTH).endsWith("x…");
    assertThat(stored).doesNotContain("\uFFFD");
  }
}
