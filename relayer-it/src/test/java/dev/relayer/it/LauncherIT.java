package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.relayer.schema.PostgreSqlOutboxSchema;
import dev.relayer.schema.SchemaOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code ./relayer} launcher script at the root of the repository. The first-use build is
 * checked with a stand-in {@code mvn} on the PATH, so that the test does not run a nested Maven
 * build: it asserts what the launcher asks Maven for and that Maven's output never reaches stdout.
 */
class LauncherIT {

  private Path checkout;

  @BeforeEach
  void requireBash() throws IOException {
    assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "the launcher is a bash script");
    checkout = Files.createTempDirectory("relayer-launcher");
    Path copy = Files.copy(launcher(), checkout.resolve("relayer"));
    Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  @AfterEach
  void deleteCheckout() throws IOException {
    if (checkout != null) {
      try (Stream<Path> files = Files.walk(checkout)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(file);
        }
      }
    }
  }

  @Test
  void launcherInTheRepositoryRunsTheBuiltJar() throws Exception {
    CliProcess.jar(); // fails fast instead of letting the launcher start a nested build
    CliProcess ok =
        CliProcess.run(
            List.of(
                launcher().toString(), "db", "script", "--provider", "postgres", "--prefix", "Ü_"),
            Map.of(),
            null);
    assertThat(ok.exitCode()).isZero();
    assertThat(ok.err()).isEmpty();
    assertThat(ok.out())
        .isEqualTo(PostgreSqlOutboxSchema.createScript(SchemaOptions.of("public", "Ü_")));

    CliProcess mysql =
        CliProcess.run(
            List.of(launcher().toString(), "db", "script", "--provider", "mysql"), Map.of(), null);
    assertThat(mysql.exitCode()).isEqualTo(2);
    assertThat(mysql.out()).isEmpty();
    assertThat(mysql.err().lines()).hasSize(1);
  }

  @Test
  void firstUseBuildsTheJarWithMavenOutputOnStderrOnly() throws Exception {
    Path bin = fakeMaven("cp \"$REAL_JAR\" relayer-cli/target/relayer-cli.jar\nexit 0\n");

    CliProcess first = runCopiedLauncher(bin, "db", "script", "--provider", "postgres");

    assertThat(first.exitCode()).isZero();
    assertThat(first.out())
        .isEqualTo(PostgreSqlOutboxSchema.createScript(SchemaOptions.defaults()));
    assertThat(first.err())
        .contains("first use")
        .contains("[INFO] stand-in maven on stdout")
        .contains("stand-in maven on stderr");
    assertThat(Files.readAllLines(checkout.resolve("mvn-calls.txt"), UTF_8))
        .containsExactly(
            checkout.toRealPath()
                + ": -q -B -Dstyle.color=never -pl relayer-cli -am package -DskipTests");

    CliProcess second = runCopiedLauncher(bin, "--version");
    assertThat(second.exitCode()).isZero();
    assertThat(second.err()).isEmpty();
    assertThat(Files.readAllLines(checkout.resolve("mvn-calls.txt"), UTF_8)).hasSize(1);
  }

  @Test
  void failedFirstUseBuildExits1WithNothingOnStdout() throws Exception {
    Path bin = fakeMaven("echo '[ERROR] stand-in failure'\nexit 1\n");

    CliProcess run = runCopiedLauncher(bin, "db", "script", "--provider", "postgres");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).contains("[ERROR] stand-in failure").contains("build failed");
  }

  private CliProcess runCopiedLauncher(Path bin, String... args) throws Exception {
    List<String> command =
        Stream.concat(Stream.of(checkout.resolve("relayer").toString()), Stream.of(args)).toList();
    return CliProcess.run(
        command,
        Map.of(
            "PATH", bin + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"),
            "REAL_JAR", CliProcess.jar().toString(),
            "JAVA_HOME", System.getProperty("java.home")),
        Path.of(System.getProperty("java.io.tmpdir")));
  }

  /** A directory holding an executable {@code mvn} that logs its call, chatters, then runs body. */
  private Path fakeMaven(String body) throws IOException {
    Path bin = Files.createDirectories(checkout.resolve("fake-bin"));
    Path mvn = bin.resolve("mvn");
    Files.writeString(
        mvn,
        "#!/bin/bash\n"
            + "echo \"$(pwd): $*\" >> mvn-calls.txt\n"
            + "echo '[INFO] stand-in maven on stdout'\n"
            + "echo 'stand-in maven on stderr' >&2\n"
            + "mkdir -p relayer-cli/target\n"
            + body,
        UTF_8);
    Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
    return bin;
  }

  private static Path launcher() {
    String launcher = System.getProperty("relayer.launcher");
    if (launcher == null) {
      throw new IllegalStateException("system property relayer.launcher is not set");
    }
    return Path.of(launcher).toAbsolutePath().normalize();
  }
}
