package dev.relayer.api;

import org.jspecify.annotations.Nullable;

/**
 * The database lacks a table, column or index Relayer needs, or has one of an incompatible shape.
 * Names the missing or incompatible object, so that an operator knows which changelog was not
 * applied.
 */
public class SchemaMismatchException extends RelayerException {
  private static final long serialVersionUID = 1L;

  private final String objectName;

  public SchemaMismatchException(String objectName, String message, @Nullable Throwable cause) {
    super(message, cause);
    this.objectName = objectName;
  }

  /** The schema-qualified name of the missing or incompatible object, as Relayer expects it. */
  public String objectName() {
    return objectName;
  }
}
