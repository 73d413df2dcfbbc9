package dev.relayer.api;

import org.jspecify.annotations.Nullable;

/**
 * Root of every exception Relayer throws. Unchecked, so that it passes through the application's
 * jOOQ transaction lambdas unchanged.
 */
public class RelayerException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RelayerException(String message) {
    super(message);
  }

  public RelayerException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
