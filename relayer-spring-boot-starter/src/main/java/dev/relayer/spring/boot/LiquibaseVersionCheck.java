package dev.relayer.spring.boot;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * Which Liquibase is on the class path, and what to say when Relayer was not tested with it.
 * Relayer's changelog is tested with Liquibase 4.28 to 4.33. Liquibase 5 is not open source (its
 * licence is the FSL), and Spring Boot 4's dependency management brings Liquibase 5.0 unless the
 * build pins an older version.
 */
final class LiquibaseVersionCheck {

  /** The Liquibase versions Relayer's changelog is tested with. */
  static final String TESTED = "4.28 to 4.33";

  /** What Liquibase's own {@code LiquibaseUtil} reads its version from, in every 4.x and 5.x. */
  static final String BUILD_PROPERTIES = "liquibase.build.properties";

  private LiquibaseVersionCheck() {}

  /**
   * The warning for Liquibase {@code version}: present for 5 and newer, empty for older versions
   * and for a version that does not start with a number.
   */
  static Optional<String> warning(@Nullable String version) {
    if (version == null || major(version) < 5) {
      return Optional.empty();
    }
    return Optional.of(
        "Liquibase "
            + version
            + " is on the class path; Relayer is tested with Liquibase "
            + TESTED
            + " (Liquibase 5 is not open source: FSL). Spring Boot 4 brings 5.x unless the build"
            + " pins it: set <liquibase.version>4.33.0</liquibase.version> in the pom's"
            + " properties (Gradle: ext['liquibase.version'] = '4.33.0')");
  }

  /** The major version, or -1 when {@code version} does not start with a number. */
  static int major(String version) {
    int digits = 0;
    while (digits < version.length() && Character.isDigit(version.charAt(digits))) {
      digits++;
    }
    if (digits == 0 || digits > 6) {
      return -1;
    }
    return Integer.parseInt(version.substring(0, digits));
  }

  /** The version of the Liquibase {@code loader} finds, or {@code null} when it finds none. */
  static @Nullable String version(ClassLoader loader) {
    try (InputStream in = loader.getResourceAsStream(BUILD_PROPERTIES)) {
      if (in == null) {
        return null;
      }
      Properties build = new Properties();
      build.load(in);
      String version = build.getProperty("build.version");
      return version == null || version.isBlank() ? null : version.strip();
    } catch (IOException | IllegalArgumentException e) {
      return null;
    }
  }
}
