package dev.relayer.cli;

import java.io.Console;
import java.lang.reflect.Method;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The question a mutating command asks before it acts: with {@code --yes} none; on a terminal
 * ({@link System#console()}) the action is shown and only {@code y} or {@code yes} goes on; without
 * a terminal the command refuses, with one line on standard error and exit code {@value
 * RelayerCli#EXIT_USAGE}, so that a script never acts without saying {@code --yes}.
 */
final class Confirmation {

  private Confirmation() {}

  /** What the command should do next. */
  enum Answer {
    GO,
    DECLINED,
    REFUSED
  }

  /** Asks whether to do {@code action} ("replay 3 dead rows matching …"), unless {@code yes}. */
  // Null up to JDK 21 without a terminal; from JDK 22 isTerminal tells.
  @SuppressWarnings("SystemConsoleNull")
  static Answer ask(CommandSpec spec, boolean yes, String action) {
    if (yes) {
      return Answer.GO;
    }
    Console console = System.console();
    if (console == null || !isTerminal(console)) {
      spec.commandLine()
          .getErr()
          .println(
              ErrorLine.of(
                  spec.qualifiedName()
                      + ": would "
                      + action
                      + "; refusing without --yes because there is no terminal to ask"));
      return Answer.REFUSED;
    }
    String reply = console.readLine("%s ", ErrorLine.of(action + "? [y/N]"));
    String answer = reply == null ? "" : reply.trim().toLowerCase(Locale.ROOT);
    return answer.equals("y") || answer.equals("yes") ? Answer.GO : Answer.DECLINED;
  }

  /**
   * Whether {@code console} is a terminal. Up to JDK 21, {@link System#console()} returns a console
   * only when there is one; from JDK 22 it may return one on pipes too, and {@code
   * Console.isTerminal()} (looked up by name, as this code compiles for Java 17) tells.
   */
  private static boolean isTerminal(Console console) {
    try {
      Method isTerminal = Console.class.getMethod("isTerminal");
      return Boolean.TRUE.equals(isTerminal.invoke(console));
    } catch (NoSuchMethodException e) {
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return false;
    }
  }
}
