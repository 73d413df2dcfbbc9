package dev.relayer.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command as a real process and captures its exit code, stdout and stderr apart. */
record CliProcess(int exitCode, String out, String err) {

  /** Where the build put the runnable jar (system property set by the failsafe configuration). */
  static Path jar() {
    String jar = System.getProperty("relayer.cli.jar");
    if (jar == null) {
      throw new IllegalStateException("system property relayer.cli.jar is not set");
    }
    Path path = Path.of(jar).toAbsolutePath().normalize();
    if (!Files.isRegularFile(path)) {
      throw new IllegalStateException(path + " does not exist; build relayer-cli first");
    }
    return path;
  }

  static Path java() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  /** {@code java -jar relayer-cli.jar args...} under a UTF-8 locale. */
  static CliProcess relayer(String... args) throws IOException, InterruptedException {
    return relayer(Map.of("LC_ALL", "C.UTF-8"), args);
  }

  /** {@code java -jar relayer-cli.jar args...} with extra environment variables. */
  static CliProcess relayer(Map<String, String> environment, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(java().toString(), "-jar", jar().toString()));
    command.addAll(List.of(args));
    return run(command, environment, null);
  }

  /**
   * {@code java [jvmOptions] -cp <this JVM's class path> main args...} with extra environment
   * variables: a test's own main class in a child JVM, waited for up to 2 minutes.
   */
  static CliProcess runMain(
      Class<?> main, List<String> jvmOptions, List<String> args, Map<String, String> environment)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(java().toString());
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(args);
    return run(command, environment, null);
  }

  /** {@link #runMain(Class, List, List, Map)} without JVM options or extra environment. */
  static CliProcess runMain(Class<?> main, List<String> args)
      throws IOException, InterruptedException {
    return runMain(main, List.of(), args, Map.of());
  }

  /** Runs {@code command} in {@code directory} (or the current one) and waits up to 2 minutes. */
  static CliProcess run(List<String> command, Map<String, String> environment, Path directory)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("relayer-out", ".txt");
    Path err = Files.createTempFile("relayer-err", ".txt");
    try {
      ProcessBuilder builder = new ProcessBuilder(command);
      // These make every JVM announce them on stderr, which is not the command's output.
      builder.environment().remove("JAVA_TOOL_OPTIONS");
      builder.environment().remove("JDK_JAVA_OPTIONS");
      builder.environment().remove("_JAVA_OPTIONS");
      builder.environment().putAll(environment);
      if (directory != null) {
        builder.directory(directory.toFile());
      }
      builder.redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
      builder.redirectOutput(out.toFile());
      builder.redirectError(err.toFile());
      Process process = builder.start();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError(command + " did not finish within 2 minutes");
      }
      return new CliProcess(
          process.exitValue(), Files.readString(out, UTF_8), Files.readString(err, UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  private static java.io.File nullDevice() {
    return new java.io.File(
        System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
  }
}
