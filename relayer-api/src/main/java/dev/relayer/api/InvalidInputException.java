package dev.relayer.api;

import java.util.List;

/**
 * Bad input given to a public entry point: an option out of range, a blank name, a nil UUID, an
 * identifier that PostgreSQL would truncate. Thrown before anything is written. {@link #problems()}
 * lists every problem found, each naming the offending option or field.
 */
public class InvalidInputException extends RelayerException {
  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  public InvalidInputException(List<String> problems) {
    super(String.join("; ", problems));
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an InvalidInputException needs at least one problem");
    }
    this.problems = List.copyOf(problems);
  }

  public InvalidInputException(String problem) {
    this(List.of(problem));
  }

  /** Every problem found, one sentence each, naming the option or field. */
  public List<String> problems() {
    return problems;
  }
}
