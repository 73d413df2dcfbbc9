package dev.relayer.examples.orders;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Spring Boot quick start in Relayer's README is taken from this example: each block marked
 * {@code <!-- snippet:example:PATH -->} appears in the example's file {@code PATH}, line by line,
 * with whitespace normalized and blank lines ignored. Skipped in a copy of the example outside
 * Relayer's repository.
 */
class ReadmeSnippetsTest {

  private static final Path EXAMPLE = Path.of("");
  private static final Path README = Path.of("..", "..", "README.md");
  private static final Pattern MARKER =
      Pattern.compile(
          "<!-- snippet:example:(\\S+) -->\\s*\\n(`{3,})[^\\n]*\\n(.*?)\\n\\2", Pattern.DOTALL);

  @Test
  void everyExampleSnippetInTheReadmeIsTakenFromTheExample() throws IOException {
    assumeTrue(
        Files.exists(README) && Files.exists(Path.of("..", "..", "relayer-bom", "pom.xml")),
        "runs in Relayer's repository only");
    Matcher snippets = MARKER.matcher(Files.readString(README, UTF_8));

    List<String> checked = new ArrayList<>();
    while (snippets.find()) {
      String path = snippets.group(1);
      Path file = EXAMPLE.resolve(path);
      assertThat(file).as("the file README's snippet:example:%s names", path).exists();
      List<String> block = normalized(snippets.group(3));
      List<String> source = normalized(Files.readString(file, UTF_8));
      assertThat(Collections.indexOfSubList(source, block))
          .as("README's snippet of %s, as lines of that file:%n%s", path, String.join("\n", block))
          .isNotNegative();
      checked.add(path);
    }

    assertThat(checked).as("snippet:example markers in README.md").isNotEmpty();
  }

  /** The text's non-blank lines, each trimmed and with runs of whitespace made one space. */
  private static List<String> normalized(String text) {
    return text.lines()
        .map(line -> line.strip().replaceAll("\\s+", " "))
        .filter(line -> !line.isEmpty())
        .toList();
  }
}
