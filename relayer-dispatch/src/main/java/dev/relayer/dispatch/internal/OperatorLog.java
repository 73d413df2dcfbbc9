package dev.relayer.dispatch.internal;

import org.slf4j.Logger;

/**
 * Where the watches ({@link TransportWatch}, {@link HandoffWatch}, {@link PassFailureWatch}) write
 * the few lines an operator acts on. The library writes them to SLF4J; tests pass a recorder, so
 * that rate limits are checked against an injected clock rather than by reading log output.
 */
public interface OperatorLog {

  /** A line a person must act on. */
  void warn(String line);

  /** A line a person must act on, with the error behind it (its stack trace goes to the log). */
  default void warn(String line, Throwable error) {
    warn(line);
  }

  /** A line that ends an earlier warning (a recovery). */
  void info(String line);

  /** Lines to {@code log} at WARN and INFO. */
  static OperatorLog to(Logger log) {
    return new OperatorLog() {
      @Override
      public void warn(String line) {
        log.warn(line);
      }

      @Override
      public void warn(String line, Throwable error) {
        log.warn(line, error);
      }

      @Override
      public void info(String line) {
        log.info(line);
      }
    };
  }
}
