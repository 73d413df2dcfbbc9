package dev.relayer.store;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.TextChecks;
import java.time.Duration;

/** Argument checks shared by the store's request records. */
final class StoreChecks {

  private StoreChecks() {}

  static void requirePositive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new InvalidInputException(name + " must be positive, was " + value);
    }
  }

  /** {@code value}, checked to be not blank and writable ({@link TextChecks}). */
  static String requireText(String name, String value) {
    if (value == null || value.isBlank()) {
      throw new InvalidInputException(name + " must not be blank");
    }
    return TextChecks.require(name, value);
  }

  /** {@code value} (which may be {@code null}), checked to be writable ({@link TextChecks}). */
  static String requireWritable(String name, String value) {
    return TextChecks.require(name, value);
  }
}
