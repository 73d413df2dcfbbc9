package dev.relayer.store;

import dev.relayer.api.InvalidInputException;
import java.time.Duration;

/** Argument checks shared by the store's request records. */
final class StoreChecks {

  private StoreChecks() {}

  static void requirePositive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new InvalidInputException(name + " must be positive, was " + value);
    }
  }

  static String requireText(String name, String value) {
    if (value == null || value.isBlank()) {
      throw new InvalidInputException(name + " must not be blank");
    }
    return value;
  }
}
