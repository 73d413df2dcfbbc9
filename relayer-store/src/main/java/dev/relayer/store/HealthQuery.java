package dev.relayer.store;

import dev.relayer.api.InvalidInputException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What {@link RelayerStore#health} measures at.
 *
 * @param now the instant ages and eligibility are measured at (the JVM clock, as claims use)
 * @param recoveryDelay unordered rows written longer ago than this and never claimed count as never
 *     handed off
 * @param deadWindow dead rows with {@code failed_at} within this long before {@code now} count as
 *     recent
 */
public record HealthQuery(Instant now, Duration recoveryDelay, Duration deadWindow) {

  public HealthQuery {
    Objects.requireNonNull(now, "now");
    if (recoveryDelay == null || recoveryDelay.isNegative()) {
      throw new InvalidInputException("recoveryDelay must not be negative, was " + recoveryDelay);
    }
    StoreChecks.requirePositive("deadWindow", deadWindow);
  }
}
