package dev.relayer.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;

/**
 * The {@code relayer} command line: {@code relayer db script --provider postgres [--schema S]
 * [--prefix P]} prints the SQL script that creates Relayer's tables.
 *
 * <p>Standard output carries only the command's result (the script, the usage, the version), so
 * that it can be piped into {@code psql}. Every error is one line on standard error, and nothing is
 * printed on standard output. Both streams are UTF-8, whatever the platform's default.
 *
 * <p>Exit codes: {@value #EXIT_OK} success (also for {@code --help} and {@code --version}), {@value
 * #EXIT_FAILURE} failure while running (for example standard output closed), {@value #EXIT_USAGE}
 * invalid command line (unknown command or option, missing value, unsupported provider, invalid
 * schema or prefix).
 */
public final class RelayerCli {

  /** Success, including {@code --help} and {@code --version}. */
  public static final int EXIT_OK = 0;

  /** The command line was valid but running it failed. */
  public static final int EXIT_FAILURE = 1;

  /** The command line was invalid; nothing was done. */
  public static final int EXIT_USAGE = 2;

  private RelayerCli() {}

  /** Runs the command line and exits with its exit code. */
  public static void main(String[] args) {
    PrintWriter out =
        new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), UTF_8));
    PrintWriter err =
        new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.err), UTF_8));
    System.exit(run(out, err, args));
  }

  /**
   * Runs the command line with the given streams and returns its exit code; never throws and never
   * exits the JVM. Both writers are flushed before it returns.
   */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    try {
      for (int i = 0; i < args.length; i++) {
        if (args[i].indexOf('\uFFFD') >= 0) {
          // The JVM decodes arguments with the locale's charset; under a non-UTF-8 locale every
          // non-ASCII character arrives as U+FFFD, and the names would silently be wrong.
          err.println(
              ErrorLine.of(
                  "relayer: argument "
                      + (i + 1)
                      + " contains characters that could not be decoded;"
                      + " run with a UTF-8 locale (for example LC_ALL=C.UTF-8)"));
          return EXIT_USAGE;
        }
      }
      return commandLine(out, err).execute(args);
    } finally {
      out.flush();
      err.flush();
    }
  }

  /** The configured picocli command line, writing to {@code out} and {@code err}. */
  static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    CommandLine commandLine = new CommandLine(new RelayerCommand());
    commandLine.setOut(out);
    commandLine.setErr(err);
    // Identifiers may start with '@': never read arguments from a file.
    commandLine.setExpandAtFiles(false);
    commandLine.setParameterExceptionHandler(usageErrorHandler());
    commandLine.setExecutionExceptionHandler(failureHandler());
    return commandLine;
  }

  /** An invalid command line: one line on stderr (no usage dump, no suggestions), exit 2. */
  private static IParameterExceptionHandler usageErrorHandler() {
    return (exception, args) -> {
      CommandLine failed = exception.getCommandLine();
      String command = failed.getCommandSpec().qualifiedName();
      failed
          .getErr()
          .println(
              ErrorLine.of(
                  command + ": " + exception.getMessage() + " (see '" + command + " --help')"));
      return EXIT_USAGE;
    };
  }

  /** An unexpected failure while running a valid command: one line on stderr, exit 1. */
  private static IExecutionExceptionHandler failureHandler() {
    return (exception, failed, parseResult) -> {
      String message = exception.getMessage();
      failed
          .getErr()
          .println(
              ErrorLine.of(
                  failed.getCommandSpec().qualifiedName()
                      + ": "
                      + exception.getClass().getSimpleName()
                      + (message == null ? "" : ": " + message)));
      return EXIT_FAILURE;
    };
  }
}
