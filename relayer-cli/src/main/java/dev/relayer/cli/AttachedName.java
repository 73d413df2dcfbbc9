package dev.relayer.cli;

import java.util.HashSet;
import java.util.Set;
import java.util.Stack;
import picocli.CommandLine.IParameterConsumer;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * Takes the value of {@code --schema} and {@code --prefix} as it is, so that the command line
 * accepts every name the API accepts: picocli would read a value {@code --} as the end of the
 * options and report it missing. Given attached ({@code --schema=--}) the value is unambiguous; a
 * separate {@code --} ({@code --schema --}) is refused before parsing, with the advice to attach
 * it, like any separate value that looks like an option.
 */
final class AttachedName implements IParameterConsumer {

  /** The options this consumer has set in this parse: each may be given once. */
  private final Set<ArgSpec> given = new HashSet<>();

  @Override
  public void consumeParameters(Stack<String> args, ArgSpec argSpec, CommandSpec commandSpec) {
    String name =
        argSpec instanceof OptionSpec option ? option.longestName() : argSpec.paramLabel();
    if (args.isEmpty()) {
      throw new ParameterException(
          commandSpec.commandLine(),
          "Missing required parameter for option '" + name + "' (" + argSpec.paramLabel() + ")");
    }
    if (!given.add(argSpec)) {
      throw new ParameterException(
          commandSpec.commandLine(),
          "option '" + name + "' (" + argSpec.paramLabel() + ") should be specified only once");
    }
    argSpec.setValue(args.pop());
  }
}
