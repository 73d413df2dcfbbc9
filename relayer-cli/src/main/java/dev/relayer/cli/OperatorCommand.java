package dev.relayer.cli;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.RelayerException;
import dev.relayer.dispatch.RelayerOperator;
import dev.relayer.store.ops.NewAuditEntry;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import org.jooq.exception.DataAccessException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A command that reads or acts through {@link RelayerOperator} on one connection: it resolves the
 * database ({@link ConnectionOptions}), connects, runs {@link #run}, and turns a database failure
 * (or a {@link RelayerException}, such as missing tables) into one line on standard error and exit
 * code {@value RelayerCli#EXIT_FAILURE}; invalid input the operator rejects is a usage error.
 * Library logs below ERROR stay off the terminal: the command prints what it did.
 */
abstract class OperatorCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection = new ConnectionOptions();

  /** What the command does once connected; returns the exit code. */
  abstract int run(RelayerOperator operator, PrintWriter out);

  /** Checks the command line before connecting; throws {@link ParameterException}. */
  void validate() {}

  /** The {@code --operator} of a mutating command; null for reads and for the OS user. */
  @Nullable String operatorName() {
    return null;
  }

  @Override
  public final Integer call() {
    validate();
    String name = operatorName();
    if (name != null) {
      try {
        NewAuditEntry.checkOperator(name);
      } catch (InvalidInputException e) {
        throw new ParameterException(spec.commandLine(), "--operator: " + e.getMessage(), e);
      }
    }
    ConnectionOptions.Database database = connection.database(spec, "error");
    PrintWriter out = spec.commandLine().getOut();
    int exitCode;
    try (Connection c = database.connect()) {
      RelayerOperator operator =
          RelayerOperator.create(database.store(), ConnectionOptions.Database.dsl(c));
      exitCode = run(name == null ? operator : operator.withOperator(name), out);
    } catch (InvalidInputException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    } catch (SQLException | DataAccessException | RelayerException e) {
      return fail(
          "cannot use "
              + database.store().displayName()
              + " at "
              + database.where()
              + ": "
              + ConnectionOptions.redacted(String.valueOf(e.getMessage())));
    }
    out.flush();
    if (out.checkError()) {
      return fail("could not write to standard output");
    }
    return exitCode;
  }

  /** Prints {@code message} as the command's one error line; returns exit code 1. */
  int fail(String message) {
    spec.commandLine().getErr().println(ErrorLine.of(spec.qualifiedName() + ": " + message));
    return RelayerCli.EXIT_FAILURE;
  }
}
