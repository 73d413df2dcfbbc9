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
 * checked with a stand-in {@code ./mvnw} beside the copied launcher, so that the test does not run
 * a nested Maven build: it asserts what the launcher asks Maven for, that Maven's module lines and
 * errors reach stderr and that nothing of Maven's reaches stdout.
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
    fakeMaven("cp \"$REAL_JAR\" relayer-cli/target/relayer-cli.jar\nexit 0\n");

    CliProcess first = runCopiedLauncher("db", "script", "--provider", "postgres");

    assertThat(first.exitCode()).isZero();
    assertThat(first.out())
        .isEqualTo(PostgreSqlOutboxSchema.createScript(SchemaOptions.defaults()));
    assertThat(first.err())
        .contains("first use")
        .as("progress: Maven's module lines")
        .contains("[INFO] Building Relayer command line 0.1.0-SNAPSHOT [1/1]")
        .as("the rest of Maven's output stays in the log")
        .doesNotContain("stand-in maven chatter");
    assertThat(Files.readAllLines(checkout.resolve("mvn-calls.txt"), UTF_8))
        .containsExactly(
            checkout.toRealPath() + ": -B -Dstyle.color=never -Pquick -pl relayer-cli -am package");

    CliProcess second = runCopiedLauncher("--version");
    assertThat(second.exitCode()).isZero();
    assertThat(second.err()).isEmpty();
    assertThat(Files.readAllLines(checkout.resolve("mvn-calls.txt"), UTF_8)).hasSize(1);
  }

  @Test
  void failedFirstUseBuildExits1WithNothingOnStdout() throws Exception {
    fakeMaven("echo '[ERROR] stand-in failure'\nexit 1\n");

    CliProcess run = runCopiedLauncher("db", "script", "--provider", "postgres");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).contains("[ERROR] stand-in failure").contains("build failed");
  }

  private CliProcess runCopiedLauncher(String... args) throws Exception {
    List<String> command =
        Stream.concat(Stream.of(checkout.resolve("relayer").toString()), Stream.of(args)).toList();
    return CliProcess.run(
        command,
        Map.of(
            "REAL_JAR", CliProcess.jar().toString(),
            "JAVA_HOME", System.getProperty("java.home")),
        Path.of(System.getProperty("java.io.tmpdir")));
  }

  /**
   * An executable {@code mvnw} beside the copied launcher that logs its call, prints a module line
   * and some chatter on both streams, then runs {@code body}.
   */
  private void fakeMaven(String body) throws IOException {
    Path mvnw = checkout.resolve("mvnw");
    Files.writeString(
        mvnw,
        "#!/bin/bash\n"
            + "echo \"$(pwd): $*\" >> mvn-calls.txt\n"
            + "echo '[INFO] Building Relayer command line 0.1.0-SNAPSHOT [1/1]'\n"
            + "echo 'stand-in maven chatter'\n"
            + "echo 'stand-in maven chatter' >&2\n"
            + "mkdir -p relayer-cli/target\n"
            + body,
        UTF_8);
    Files.setPosixFilePermissions(mvnw, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private static Path launcher() {
    String launcher = System.getProperty("relayer.launcher");
    if (launcher == null) {
      throw new IllegalStateException("system property relayer.launcher is not set");
    }
    return Path.of(launcher).toAbsolutePath().normalize();
  }
}
