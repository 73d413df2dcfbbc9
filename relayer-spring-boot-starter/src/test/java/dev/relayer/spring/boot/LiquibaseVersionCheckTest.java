package dev.relayer.spring.boot;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** The warning for Liquibase 5 and newer, which Relayer is not tested with. */
@ExtendWith(OutputCaptureExtension.class)
class LiquibaseVersionCheckTest {

  @Test
  void liquibaseFiveAndNewerGetAWarningNamingTheTestedVersionsAndThePin() {
    assertThat(LiquibaseVersionCheck.warning("5.0.3"))
        .hasValueSatisfying(
            warning ->
                assertThat(warning)
                    .contains("Liquibase 5.0.3 is on the class path")
                    .contains("tested with Liquibase 4.28 to 4.33")
                    .contains("<liquibase.version>4.33.0</liquibase.version>"));
    assertThat(LiquibaseVersionCheck.warning("5.0.0-SNAPSHOT")).isPresent();
    assertThat(LiquibaseVersionCheck.warning("6.1")).isPresent();
    assertThat(LiquibaseVersionCheck.warning("10.0.0")).isPresent();
  }

  @Test
  void liquibaseFourAndAnUnreadableVersionGetNoWarning() {
    assertThat(LiquibaseVersionCheck.warning("4.33.0")).isEmpty();
    assertThat(LiquibaseVersionCheck.warning("4.28.0")).isEmpty();
    assertThat(LiquibaseVersionCheck.warning("3.10.3")).isEmpty();
    assertThat(LiquibaseVersionCheck.warning("DEV")).isEmpty();
    assertThat(LiquibaseVersionCheck.warning("")).isEmpty();
    assertThat(LiquibaseVersionCheck.warning("99999999999.0")).isEmpty();
    assertThat(LiquibaseVersionCheck.warning(null)).isEmpty();
  }

  @Test
  void theVersionIsReadFromLiquibasesBuildProperties(@TempDir Path dir) throws IOException {
    assertThat(LiquibaseVersionCheck.version(getClass().getClassLoader()))
        .as("the Liquibase the starter's tests run with")
        .startsWith("4.");
    assertThat(LiquibaseVersionCheck.version(liquibase("5.0.3", dir))).isEqualTo("5.0.3");
  }

  @Test
  void anApplicationWithLiquibaseFiveLogsOneWarningAtStart(@TempDir Path dir, CapturedOutput out)
      throws IOException {
    runner()
        .withClassLoader(liquibase("5.0.3", dir))
        .run(context -> assertThat(context).hasNotFailed());

    assertThat(out.getAll())
        .containsOnlyOnce("Liquibase 5.0.3 is on the class path")
        .contains("WARN");
  }

  @Test
  void anApplicationWithLiquibaseFourLogsNothingAboutIt(CapturedOutput out) {
    runner().run(context -> assertThat(context).hasNotFailed());

    assertThat(out.getAll()).doesNotContain("is on the class path");
  }

  private static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RelayerLiquibaseAutoConfiguration.class));
  }

  /** The test class path, with Liquibase's build properties saying {@code version}. */
  private static ClassLoader liquibase(String version, Path dir) throws IOException {
    Path properties = dir.resolve(LiquibaseVersionCheck.BUILD_PROPERTIES);
    Files.writeString(properties, "build.version=" + version + "\n", UTF_8);
    URL url = properties.toUri().toURL();
    return new ClassLoader(LiquibaseVersionCheckTest.class.getClassLoader()) {
      @Override
      public URL getResource(String name) {
        return name.equals(LiquibaseVersionCheck.BUILD_PROPERTIES) ? url : super.getResource(name);
      }
    };
  }
}
