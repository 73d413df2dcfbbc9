package dev.relayer.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The {@code relayer} command line: {@code relayer db script --provider postgres [--schema S]
 * [--prefix P]} prints the SQL script that creates Relayer's tables; {@code relayer status [--url
 * URL] [--schema S] [--prefix P]} prints one health check of them; {@code relayer dead …} and
 * {@code relayer parked …} read and act on dead rows and parked keys.
 *
 * <p>Standard output carries only the command's result (the script, the usage, the version), so
 * that it can be piped into {@code psql}. Every error is one line on standard error, and nothing is
 * printed on standard output. Both streams are UTF-8, whatever the platform's default. No line of
 * either stream carries a password (from a URL or {@code PGPASSWORD}), picocli's own usage errors
 * included, and stored texts (errors, keys, operator names) reach the terminal with control
 * characters, C1 codes and bidirectional formatting characters escaped ({@link TerminalWriter}).
 *
 * <p>Exit codes: {@value #EXIT_OK} success (also for {@code --help} and {@code --version}), {@value
 * #EXIT_FAILURE} failure while running (for example standard output closed, for every command
 * including {@code --help} and {@code --version}), {@value #EXIT_USAGE} invalid command line
 * (unknown command or option, missing value, unsupported provider, invalid schema or prefix),
 * {@value #EXIT_DRIFT} {@code relayer db verify} found differences from the current schema.
 */
public final class RelayerCli {

  /** Success, including {@code --help} and {@code --version}. */
  public static final int EXIT_OK = 0;

  /** The command line was valid but running it failed. */
  public static final int EXIT_FAILURE = 1;

  /** The command line was invalid; nothing was done. */
  public static final int EXIT_USAGE = 2;

  /** {@code relayer db verify} found differences from the current schema. */
  public static final int EXIT_DRIFT = 3;

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
    return runWith(out, err, System.getenv("PGPASSWORD"), args);
  }

  /**
   * {@link #run(PrintWriter, PrintWriter, String...)} with {@code pgPassword} standing for the
   * {@code PGPASSWORD} environment variable: every line either stream receives passes through a
   * {@link TerminalWriter} first (passwords replaced, terminal controls escaped), except the script
   * of {@code relayer db script}, which is written as generated.
   */
  static int runWith(
      PrintWriter rawOut, PrintWriter rawErr, @Nullable String pgPassword, String... args) {
    PrintWriter out = TerminalWriter.over(rawOut, pgPassword);
    PrintWriter err = TerminalWriter.over(rawErr, pgPassword);
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
      CommandLine commandLine = commandLine(out, err);
      // The script goes out exactly as generated (a quoted identifier may hold any character).
      CommandLine db = Objects.requireNonNull(commandLine.getSubcommands().get("db"));
      Objects.requireNonNull(db.getSubcommands().get("script")).setOut(rawOut);
      String separated = optionAsSeparateValue(commandLine, args);
      if (separated != null) {
        err.println(ErrorLine.of(separated));
        return EXIT_USAGE;
      }
      int exitCode = commandLine.execute(args);
      if (exitCode == EXIT_OK && (out.checkError() || rawOut.checkError())) {
        // --help, --version or a result written to a closed standard output.
        err.println("relayer: could not write to standard output");
        return EXIT_FAILURE;
      }
      return exitCode;
    } finally {
      out.flush();
      err.flush();
      rawOut.flush();
      rawErr.flush();
    }
  }

  /**
   * The usage error for an option whose value, given as the next argument, is another option
   * ({@code --schema --prefix x}) or the end-of-options marker {@code --}: probably a forgotten
   * value. Values that look like options are accepted attached ({@code --schema=--prefix}, {@code
   * --schema=--}), where nothing is ambiguous. Null when there is none.
   */
  // The body's i++ steps over the option's value as well.
  @SuppressWarnings("IncrementInForLoopAndHeader")
  private static @Nullable String optionAsSeparateValue(CommandLine commandLine, String[] args) {
    Map<String, String> takingValues = new HashMap<>();
    Set<String> names = new HashSet<>();
    collectOptions(commandLine.getCommandSpec(), takingValues, names);
    for (int i = 0; i + 1 < args.length; i++) {
      String command = takingValues.get(args[i]);
      if (command == null) {
        continue;
      }
      String next = args[i + 1];
      int equals = next.indexOf('=');
      if (next.equals("--") || names.contains(equals < 0 ? next : next.substring(0, equals))) {
        return command
            + ": Expected parameter for option '"
            + args[i]
            + "' but found '"
            + next
            + "'; to pass a value that starts like an option, attach it: "
            + args[i]
            + "="
            + next
            + " (see '"
            + command
            + " --help')";
      }
      i++;
    }
    return null;
  }

  private static void collectOptions(
      CommandSpec spec, Map<String, String> takingValues, Set<String> names) {
    for (OptionSpec option : spec.options()) {
      for (String name : option.names()) {
        names.add(name);
        if (option.arity().max() > 0) {
          takingValues.putIfAbsent(name, spec.qualifiedName());
        }
      }
    }
    spec.subcommands()
        .values()
        .forEach(sub -> collectOptions(sub.getCommandSpec(), takingValues, names));
  }

  /** The configured picocli command line, writing to {@code out} and {@code err}. */
  static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    CommandLine commandLine = new CommandLine(new RelayerCommand());
    commandLine.setOut(out);
    commandLine.setErr(err);
    // Identifiers may start with '@': never read arguments from a file.
    commandLine.setExpandAtFiles(false);
    // A value attached with '=' is a value whatever it looks like (--schema=--prefix); a separate
    // argument that is an option is refused before parsing (optionAsSeparateValue).
    commandLine.setAllowOptionsAsOptionParameters(true);
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
