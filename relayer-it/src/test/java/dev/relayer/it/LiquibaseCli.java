package dev.relayer.it;

import dev.relayer.testkit.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Liquibase's own command line ({@code liquibase update ...}) run in a child JVM, with the test
 * class path standing in for Liquibase's lib directory.
 */
final class LiquibaseCli {

  /** How a run ended: its exit code and everything it printed. */
  record Result(int exitCode, String output) {}

  private LiquibaseCli() {}

  /**
   * Runs {@code update} of {@code changelog} against {@code db}; {@code jvmOptions} go to the child
   * JVM (for example {@code -Dname=value} system properties), {@code parameters} after the command
   * (for example Liquibase's own {@code -Dname=value} changelog parameters).
   */
  static Result update(
      TestDatabase db, String changelog, List<String> jvmOptions, String... parameters)
      throws IOException, InterruptedException {
    return update(System.getProperty("java.class.path"), db, changelog, jvmOptions, parameters);
  }

  /** {@link #update(TestDatabase, String, List, String...)} on the class path {@code classPath}. */
  static Result update(
      String classPath,
      TestDatabase db,
      String changelog,
      List<String> jvmOptions,
      String... parameters)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(classPath);
    command.add("-Dliquibase.analytics.enabled=false");
    command.addAll(jvmOptions);
    command.add("liquibase.integration.commandline.LiquibaseCommandLine");
    command.add("--show-banner=false");
    command.add("--log-level=WARNING");
    command.add("update");
    command.add("--changelog-file=" + changelog);
    command.add("--url=" + db.jdbcUrl());
    command.add("--username=" + db.user());
    if (db.password() != null) {
      command.add("--password=" + db.password());
    }
    command.addAll(List.of(parameters));
    Path output = Files.createTempFile("liquibase-cli", ".log");
    try {
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      builder.redirectOutput(output.toFile());
      builder.environment().put("LC_ALL", "C.UTF-8");
      Process process = builder.start();
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("liquibase did not finish in 120 s");
      }
      return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(output);
    }
  }
}
