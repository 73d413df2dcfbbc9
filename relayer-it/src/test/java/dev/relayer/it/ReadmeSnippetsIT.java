package dev.relayer.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The README shows exactly the code that {@link GettingStartedIT} runs. */
class ReadmeSnippetsIT {

  private static final Path ROOT = Path.of(System.getProperty("relayer.root", ".."));

  @Test
  void readmeGettingStartedIsTheCodeTheTestRuns() throws IOException {
    String test =
        Files.readString(
            ROOT.resolve("relayer-it/src/test/java/dev/relayer/it/GettingStartedIT.java"),
            StandardCharsets.UTF_8);
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);

    String fromTest = between(test, "// snippet:getting-started\n", "      // end-snippet");
    String fromReadme = between(readme, "<!-- snippet:getting-started -->\n```java\n", "```");

    assertThat(normalize(fromReadme)).isEqualTo(normalize(fromTest));
  }

  private static String between(String text, String start, String end) {
    int from = text.indexOf(start);
    assertThat(from).as("marker %s", start.trim()).isNotNegative();
    int to = text.indexOf(end, from + start.length());
    assertThat(to).as("marker %s", end.trim()).isPositive();
    return text.substring(from + start.length(), to);
  }

  /** Same lines, indentation stripped: the README block is not indented like the test method. */
  private static List<String> normalize(String code) {
    return code.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.toList());
  }
}
